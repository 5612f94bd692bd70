import { analyzeText, type Lang, type QueryToken } from './analyze.js';
import { fold } from '../../machines/textFold.js';

/**
 * What a question's answer must contain, QA-style, and whether the retrieved passages' sentences
 * closest to the question contain it (bench/journal/2026-12-docs-assistant.md § Seventh round):
 * - `duration`: « combien de temps », « how long », « quel délai » — a number with a unit of time;
 * - `date`: « en quelle année », « which year », « depuis quand », « when was » — a year or a month
 *   (not « quand … » alone: « Quand un utilisateur part, … » is a condition, not a date asked);
 * - `version`: « quelle version », « which versions » — a version string or a dated revision;
 * - `contact`: « numéro de téléphone », « phone number », « horaires » — digits enough for one (an
 *   address is not asked for: « where and how, for instance with an email address » asks a procedure);
 * - `name`: « what is the name of », « which US state », « à quelle banque » — a capitalised name
 *   past a sentence's first word;
 * - `comparison`: « lequel est le plus rapide », « faster than », « compared with » — a comparative
 *   (« plus », « than », « better »…): docs that never compare two things cannot rank them;
 * - `number`: « combien de », « how many », « quel pourcentage », a unit named for the answer
 *   (« en secondes », "in megabytes") — a figure on its own (not the digits of « base64 »);
 * - `amount`: « quel montant », « amende », "fine" — a sum of money (a figure with its currency):
 *   « une durée maximale de vingt-cinq mois » is a figure, not the fine asked for;
 * - `product`: « quel logiciel », « which tool », « quelle extension » — a capitalised name the
 *   question does not already hold (« the CNIL » asked about is not the tool it recommends);
 * - `command`: « quelle commande », « what is the pip command » — a command line (a package
 *   manager, runtime or shell tool followed by its arguments, or a `$` prompt); when the question
 *   names the tool (« pip »), a line of that tool: an `npx` line does not say how `pip` installs.
 * A trap in the docs' own words (« Combien de personnes ont contribué à la spécification MCP ? »)
 * finds passages about its topic whose closest sentences hold no figure: the docs talk about it,
 * they do not say it.
 */
export type ExpectedAnswer = 'amount' | 'duration' | 'date' | 'version' | 'contact' | 'number' | 'name' | 'comparison' | 'command' | 'product';

/** Command-line tools whose invocation is a command (package managers, runtimes, shell tools). */
const TOOLS = 'npm|npx|pnpm|yarn|bun|deno|node|pip3?|pipx|uvx?|python3?|poetry|conda|docker|podman|kubectl|curl|wget|git|brew|apt-get|apt|dnf|cargo|go|dotnet|mvn|gradle|gem|composer|make';
const TOOL = new RegExp(`\\b(${TOOLS})\\b`);

const ASKS: ReadonlyArray<[ExpectedAnswer, RegExp]> = [
  ['command', new RegExp(`\\b(?:quelle commande|quelle est la commande|la commande (?:\\S+ )?(?:pour|a|qui)|which command|what command|what is the (?:\\S+ )?command|the (?:\\S+ )?command (?:to|for|that)|(?:${TOOLS}) command)\\b`)],
  // A unit named for the answer (« en secondes », "in megabytes") asks for a figure in it, whatever
  // else the question says: « quel délai, en secondes » is not answered by a sentence on timeouts.
  ['number', /\b(?:en|in) (?:secondes|minutes|heures|jours|semaines|mois|annees|octets|kilo-?octets|mega-?octets|giga-?octets|seconds|hours|days|weeks|months|years|bytes|kilobytes|megabytes|gigabytes|pixels)\b/],
  ['amount', /\b(?:quel (?:est le )?montant|quelle (?:est la )?somme|combien d'euros|amendes?|sanctions? financieres?|what (?:is the )?amount|how much money|(?:the|a|what|which|maximum|any) fines?(?!-)|fines|penalt(?:y|ies))\b/],
  ['duration', /\b(?:combien de (?:temps|jours|mois|ans|annees|semaines|heures|minutes)|pendant combien|how long(?!-)|quel(?:le)? (?:est (?:le|la) )?(?:delai|duree)|what (?:is the )?(?:period|retention period|delay|timeout)|how many (?:days|months|years|weeks|hours|minutes))\b/],
  ['date', /\b(?:en quelle annee|quelle annee|which year|what year|in what year|depuis quand|since when|a quelle date|what date|quelle date|^when (?:was|did|were|will))\b|^quand\b[^,]*?(?:-t-(?:il|elle|on) ete|\Bra-t-(?:il|elle|on)|\Bront-(?:ils|elles))\b/],
  ['version', /\b(?:quelles? versions?|which versions?|what versions?)\b/],
  ['contact', /\b(?:numero de tel\w*|phone number|horaires|opening hours)\b/],
  ['name', /\b(?:what is the name|quel est le nom|comment s'appelle|which (?:us )?state|which country|quel pays|quelle ville|which city|quelle banque|which bank|which company|quelle entreprise|quelle societe)\b/],
  ['product', /\b(?:quel(?:le)?s? (?:logiciels?|outils?|extensions?|plugins?|modules?|bibliotheques?|librairies?|applications?|produits?|editeurs?)|which (?:[a-z]+ )?(?:tools?|software|extensions?|plugins?|add-ons?|librar(?:y|ies)|packages?|apps?|applications?|products?|editors?))\b/],
  ['comparison', /\b(?:lequel est le plus|laquelle est la plus|lequel est le moins|which (?:one )?is (?:the )?(?:faster|better|safer|cheaper|more|less)|faster than|slower than|better than|safer than|plus rapide que|plus sur que|mieux que|compared (?:with|to)|versus|vs)\b/],
  ['number', /\b(?:combien d[e']|how many|how much|quel (?:est le )?(?:montant|pourcentage|nombre|taux|seuil|plafond)|what (?:is the )?(?:percentage|amount|number|share|rate)|quelle (?:est la )?(?:part|proportion|somme)|amende maximale|maximum fine|(?:maximum|minimum) (?:number|size|length)|(?:nombre|taille|longueur) (?:maximale?|minimale?|maximum|minimum))\b/],
];

// Not « un », « une », « one »: articles far more often than figures, they made every French sentence hold a number.
const NUMBER_WORDS = 'deux|trois|quatre|cinq|six|sept|huit|neuf|dix|douze|quinze|vingt|trente|quarante|cinquante|soixante|cent|mille|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred|thousand';
const UNIT = 'jours?|mois|ans?|annees?|semaines?|heures?|minutes?|secondes?|days?|months?|years?|weeks?|hours?|minutes?|seconds?|ms|h';
const MONTHS = 'janvier|fevrier|mars|avril|mai|juin|juillet|aout|septembre|octobre|novembre|decembre|january|february|march|april|june|july|august|september|october|november|december';

const HOLDS: Record<ExpectedAnswer, RegExp> = {
  duration: new RegExp(`(?:\\d+|\\b(?:${NUMBER_WORDS}))\\s*(?:${UNIT})\\b|\\b(?:duree|periode|delai|period|retention)\\b`),
  date: new RegExp(`\\b(?:1[89]|20)\\d\\d\\b|\\b(?:${MONTHS})\\b`),
  version: /\bv?\d+(?:\.\d+)+\b|\b\d{4}-\d\d-\d\d\b|\bversions? \d/,
  contact: /\+?\d[\d .-]{7,}\d|@[\w-]+\.\w|\b\d{1,2} ?h ?\d{0,2}\b/,
  name: /(?<=\S\s+)[A-Z][\w-]+/,
  comparison: /\b(?:plus|moins|mieux|meilleure?|pire|than|faster|slower|better|worse|safer|stronger|weaker|compared|contrairement|whereas|tandis que|alors que)\b/,
  // A figure on its own, not the digits of a name (« base64 », « SHA-256 », « UTF-8 »).
  number: new RegExp(`(?<![\\w-])\\d|\\b(?:${NUMBER_WORDS})\\b`),
  amount: /\d[\d\s\u00a0\u202f.,]*\s*(?:€|k€|m€|\$|eur\b|euros?\b|dollars?\b|millions?\b|milliards?\b)|\beuros?\b|€/,
  product: /(?<=\S\s+)[A-Z][\w-]+/g,
  command: new RegExp(`(?:^|\\s)\\$ \\S|\\b(?:${TOOLS})\\s+(?:-{1,2}[a-z]|[a-z@./][\\w@./:-]*)`),
};

/** The answer type a question asks for, if it names one (first of ASKS that matches). */
export function expectedAnswer(question: string): ExpectedAnswer | null {
  const q = fold(question).replace(/[’']/g, "'").trim();
  return ASKS.find(([, re]) => re.test(q))?.[0] ?? null;
}

/**
 * References are not figures: « article 83 », « critère 3.1 », « § 2 » are everywhere in the legal
 * and accessibility pages and say nothing about how many or how much.
 */
const REFERENCE = /\b(?:articles?|art\.|criteres?|criterion|criteria|chapitres?|chapter|sections?|annexe|§)\s*[\d.]+/g;

const FIGURE = /\d+(?:[.,:/-]\d+)*/g;
const escapeRe = (x: string): string => x.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * The figures the question already states are not its answer: « À quelle date la version
 * 2024-11-05 ne sera-t-elle plus prise en charge ? » finds sentences holding 2024-11-05 — the
 * question's own date, not the one it asks for. Each figure of the question, as written, is taken
 * out of the sentence before it is read for an answer (a longer figure holding it stays).
 */
function withoutOwnFigures(folded: string, question: string): string {
  const own = new Set<string>();
  for (const m of fold(question).matchAll(FIGURE)) own.add(m[0]);
  if (own.size === 0) return folded;
  const alternatives = [...own].sort((a, b) => b.length - a.length).map(escapeRe).join('|');
  return folded.replace(new RegExp(`(?<![\\d.,:/-])(?:${alternatives})(?![\\d]|[.,:/-]\\d)`, 'g'), ' ');
}

/** Whether a sentence holds an answer of this type (`question`: its own figures are not one). */
export const holdsAnswer = (type: ExpectedAnswer, sentence: string, question = ''): boolean => {
  if (type === 'name') return HOLDS.name.test(sentence);
  if (type === 'product') {
    const asked = new Set(fold(question).split(/[^\p{L}\p{N}]+/u));
    return [...sentence.matchAll(HOLDS.product)].some((m) => !asked.has(fold(m[0])));
  }
  const folded = withoutOwnFigures(fold(sentence).replace(REFERENCE, ' '), question);
  if (type !== 'command') return HOLDS[type].test(folded);
  const tool = TOOL.exec(fold(question))?.[1];
  return tool ? new RegExp(`(?:^|\\s)${tool}\\s+\\S`).test(folded) : HOLDS.command.test(folded);
};

const SENTENCE_END = /(?<=[.!?;:])\s+|\n+/;

interface ScoredSentence {
  text: string;
  weight: number;
}

/** The `n` sentences of `passages` carrying the most question weight (`weights[i]` for `tokens[i]`). */
export function closestSentences(tokens: readonly QueryToken[], weights: readonly number[], passages: ReadonlyArray<{ text: string; lang: Lang }>, n: number): ScoredSentence[] {
  const scored: ScoredSentence[] = [];
  for (const p of passages) {
    for (const text of p.text.split(SENTENCE_END)) {
      const stems = new Set(analyzeText(text, p.lang));
      const weight = tokens.reduce((s, t, i) => s + (t.variants.some((v) => stems.has(v)) ? weights[i]! : 0), 0);
      if (weight > 0) scored.push({ text, weight });
    }
  }
  // Stable sort: between equal weights the higher-ranked passage's sentence comes first.
  return scored.sort((a, b) => b.weight - a.weight).slice(0, n);
}

/** How many of the closest sentences are read for the expected answer. */
const CLOSEST = 3;

/**
 * 1 when the question asks for an answer type and none of the `CLOSEST` sentences of the retrieved
 * passages closest to it holds one; 0 otherwise (no type asked, or one held).
 */
export function answerTypeUnmet(question: string, tokens: readonly QueryToken[], weights: readonly number[], passages: ReadonlyArray<{ text: string; lang: Lang }>): number {
  const type = expectedAnswer(question);
  if (!type) return 0;
  return closestSentences(tokens, weights, passages, CLOSEST).some((s) => holdsAnswer(type, s.text, question)) ? 0 : 1;
}

/** IDF weight from which a name is specific (df ≤ ~5 % of passages): not « MCP », « RGAA » in their own docs. */
const RARE_NAME = 3;

/**
 * 1 when a capitalised name of the question that the corpus knows (`known[i]`) and that is
 * specific (weight ≥ RARE_NAME) is in none of the `CLOSEST` sentences: « the CNIL's IBAN » finds
 * the Faker IBAN example, whose sentences never name the CNIL, though other passages do.
 */
export function nameNotClose(names: readonly string[], tokens: readonly QueryToken[], weights: readonly number[], known: readonly boolean[], passages: ReadonlyArray<{ text: string; lang: Lang }>): number {
  const asked = tokens.filter((t, i) => known[i] && weights[i]! >= RARE_NAME && names.includes(t.word));
  if (asked.length === 0) return 0;
  const close = closestSentences(tokens, weights, passages, CLOSEST).map((s) => new Set(analyzeText(s.text, 'fr').concat(analyzeText(s.text, 'en'))));
  return asked.some((t) => !close.some((stems) => t.variants.some((v) => stems.has(v)))) ? 1 : 0;
}
