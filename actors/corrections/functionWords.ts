/**
 * Function words (articles, pronouns, prepositions, auxiliaries, conjunctions) of French and of
 * the languages a TCF candidate most often writes instead: a text's grammar words say its
 * language even when its content words are borrowed (« un lunch avec le manager ») or misspelt.
 * A word shared by several languages (« la », « de », « que ») counts for each of them.
 */
const LISTS = {
  fra: 'le la les l des du un une et est je j tu il elle nous vous ils elles on ne n pas que qu qui ce c cette ces dans pour avec sur au aux mais ou très mon ma mes ton ta tes son sa ses notre nos votre vos leur leurs suis es sont ai as avons avez ont était sera d s m t y en à être avoir plus aussi bien oui merci bonjour parce quand comme tout tous cela ça chez depuis donc alors',
  eng: 'the and is are was were to of in on at for with it its this that these those you your i we they he she him her my our their have has had be been will would can could not do does did don what how but or so if there from about me us very thank thanks please hello hi an which when because',
  spa: 'el los las del al y es son está están estaba en con por para que de la lo un una unos unas se su sus mi mis muy pero como yo tú nos le les hay más no también cuando porque este esta esto ese fue tengo tiene gracias hola mucho ha he',
  por: 'o os as do da dos das no na nos nas um uma e é em com por para que de se seu sua meu minha muito mas como eu você não também quando porque este esta isso foi tenho tem obrigado olá ao à pelo pela',
  ita: 'il lo la i gli le di del della dei delle e è un una in con per che non si mi ti ci sono ho ha ma come anche molto questo questa alla al nel nella da dal grazie ciao perché quando io',
  ron: 'și în la cu pe de din pentru că este sunt am ai are un o nu mai care ce se să mă te le lui ei meu mea mele foarte dar cum acest această bună mulțumesc dintre',
} as const;

export type FunctionWordLanguage = keyof typeof LISTS;
export const FUNCTION_WORD_LANGUAGES = Object.keys(LISTS) as FunctionWordLanguage[];
const SETS = Object.fromEntries(Object.entries(LISTS).map(([lang, words]) => [lang, new Set(words.split(' '))])) as Record<FunctionWordLanguage, Set<string>>;

/** The text's words, lower-cased, split at apostrophes (« l'école » → l, école; « don't » → don, t). */
function tokens(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}]+/u).filter(Boolean);
}

/** How many of the text's words are function words of each language. */
export function functionWordCounts(text: string): { words: number; counts: Record<FunctionWordLanguage, number> } {
  const ws = tokens(text);
  const counts = Object.fromEntries(FUNCTION_WORD_LANGUAGES.map((l) => [l, 0])) as Record<FunctionWordLanguage, number>;
  for (const w of ws) for (const l of FUNCTION_WORD_LANGUAGES) if (SETS[l].has(w)) counts[l]++;
  return { words: ws.length, counts };
}
