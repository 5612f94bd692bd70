/**
 * How rich the candidate's language is, on the words alone (no model): the range of the vocabulary
 * (Guiraud's index, distinct words over the square root of the words, over windows of 150 words) and the complexity of the sentences (subordinate clauses, conditional,
 * inverted questions, discourse connectors, per 100 words). Errors are counted elsewhere
 * (the checker's findings); these say what the candidate can do, not what went wrong.
 */

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

/** Markers of a complex sentence or of an organised discourse. */
const COMPLEX: readonly RegExp[] = [
  /\b(?:qui|dont|lorsque|lorsqu|puisque|puisqu|quoique|tandis que|alors que|bien que|afin de|afin que|pour que|de sorte que|à condition que|étant donné|au cas où|en espérant|même si|sinon)\b/giu,
  /\b(?:[\p{L}]+(?:rais|rait|rions|riez|raient))\b/giu,
  /\b[\p{L}]+-(?:vous|t-il|t-elle|t-on|il|elle|ils|elles|je)\b/giu,
  /\b(?:d'abord|tout d'abord|ensuite|enfin|par ailleurs|cependant|toutefois|pourtant|en revanche|autrement dit|quant à|quant aux|en ce qui concerne|concernant|côté|dernière chose|pour commencer|avant tout|en effet|par conséquent|c'est-à-dire|si je comprends bien|si j'ai bien compris)\b/giu,
];
/** Words in -rais… that are not conditionals. */
const NOT_CONDITIONAL = /^(?:mais|jamais|frais|vrais|vrai|désormais|anglais|français|irais)$/i;

const WINDOW = 150;
/** Rates are per 100 words of at least this many: one conditional in 14 words is not 7 per 100. */
const MIN_WORDS = 60;

export interface LanguageMeasures {
  /** Distinct words / √words (lower-cased). */
  guiraud: number;
  /** Complexity markers per 100 words (counted over 60 words at least). */
  complexite: number;
  /** Words per sentence. */
  motsParPhrase: number;
  /**
   * Whether the text marks its sentences (at least one full stop, question or exclamation mark per
   * 25 words). A speech recogniser's transcript often does not: its « sentences » are then whole
   * turns, and their length says nothing about the candidate.
   */
  ponctue: boolean;
}

export function languageMeasures(text: string): LanguageMeasures {
  const words = (text.match(WORD) ?? []).map((w) => w.toLowerCase().replace(/’/g, "'"));
  const n = words.length;
  if (n === 0) return { guiraud: 0, complexite: 0, motsParPhrase: 0, ponctue: true };
  // Over windows of WINDOW words, so that a long production does not look richer for its length alone.
  const windows: string[][] = [];
  for (let i = 0; i < n; i += WINDOW) windows.push(words.slice(i, i + WINDOW));
  if (windows.length > 1 && windows.at(-1)!.length < WINDOW / 2) windows.at(-2)!.push(...windows.pop()!);
  const guiraud = windows.reduce((sum, w) => sum + new Set(w).size / Math.sqrt(w.length), 0) / windows.length;
  let markers = 0;
  const folded = text.replace(/’/g, "'");
  for (const re of COMPLEX) for (const m of folded.matchAll(re)) if (!NOT_CONDITIONAL.test(m[0])) markers += 1;
  // Before a capital too: a speech recogniser may leave the full stops out.
  const sentences = folded.split(/[.?!…]+|\n+|\s+(?=[A-ZÀÂÉÈÊÎÔÛÇ][a-zàâéèêëîïôûüç'])/).filter((s) => s.match(WORD)).length;
  const marks = (folded.match(/[.?!…]+/g) ?? []).length;
  return { guiraud: Math.round(guiraud * 100) / 100, complexite: Math.round((1000 * markers) / Math.max(n, MIN_WORDS)) / 10, motsParPhrase: Math.round((10 * n) / Math.max(1, sentences)) / 10, ponctue: marks * 25 >= n };
}
