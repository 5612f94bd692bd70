/**
 * Stop words, already folded (lower case, no diacritics) because they are compared after folding.
 * Short on purpose: only words that carry no topic. Question words stay out of the index and out of
 * the guard's coverage score, so "Comment…", "Where should…" do not count as evidence. The English
 * list carries the quantifiers and adverbs the French one does (« combien », « chaque », « déjà »):
 * "how much" is no more a topic than « combien ».
 */
export const FRENCH_STOP_WORDS: ReadonlySet<string> = new Set(
  `a ai aie aient aies ait alors as au aucun aucune aupres aura aurai auraient aurais aurait auras aurez auriez aurions aurons auront aussi autre autres aux avaient avais avait avant avec avez aviez avions avoir avons ayant ayez ayons bon c ca car ce ceci cela celle celles celui cependant ces cet cette ceux chaque chez ci comme comment d dans de des deja doit doivent dois donc dont du elle elles en encore entre es est et etaient etais etait etant etc ete etes etre eu eue eues eurent eus eut eux faire fait faut fois font il ils j je jusqu l la le les leur leurs lors lorsque lui m ma mais me meme memes mes moi moins mon n ne ni non nos notre nous on ont or ou par parce pas peu peut peuvent peux plus pour pourquoi puis puisque qu quand que quel quelle quelles quels qui quoi s sa sans se selon ses si sien soi soit sommes son sont sous suis sur t ta te tes toi ton tous tout toute toutes tres tu un une unes uns vers voici voila vos votre vous y faut-il puis-je dois-je peut-on combien quelles lesquels lesquelles laquelle lequel ya est-ce`.split(/\s+/),
);

export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your yours yourself yourselves may might must shall also via how what many much every another already ever else whether either neither`.split(/\s+/),
);

export function isStopWord(folded: string): boolean {
  return FRENCH_STOP_WORDS.has(folded) || ENGLISH_STOP_WORDS.has(folded);
}
