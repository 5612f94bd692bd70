import { stemmer as frenchStem } from '@orama/stemmers/french';
import { stemmer as englishStem } from '@orama/stemmers/english';
import { translate } from './glossary.js';
import { ENGLISH_STOP_WORDS, FRENCH_STOP_WORDS, isStopWord } from './stopwords.js';

/**
 * Text analysis shared by the index and the queries: NFD diacritics folding, lower case, stop
 * words, Snowball stemming (French or English). Folding happens BEFORE stemming on both sides, so
 * "donnees" typed without accents meets "données" in the corpus.
 */
export type Lang = 'fr' | 'en';

/**
 * A word, or a dotted number kept whole (« 4.1.2 », « critère 3.1 », « 0.0.0.0 »): split at its
 * dots it left only one-digit pieces, which are dropped, so versions and criterion numbers could
 * not be searched (ninth round).
 */
const WORD = /\p{N}+(?:\.\p{N}+)+|[\p{L}\p{N}]+/gu;

/** Lower case without diacritics ("Sécurité" → "securite"); ligatures expanded. */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/œ/gi, 'oe')
    .replace(/æ/gi, 'ae')
    .toLowerCase();
}

/** Folded words, stop words included (used for language detection and sentence scoring). */
export function words(text: string): string[] {
  return fold(text).match(WORD) ?? [];
}

/** Snowball is the cost of indexing; a corpus has few distinct words, so stems are memoised. */
const STEM_CACHE_MAX = 200_000;
const stemCache = { fr: new Map<string, string>(), en: new Map<string, string>() };

export function stem(word: string, lang: Lang): string {
  const cache = stemCache[lang];
  let s = cache.get(word);
  if (s === undefined) {
    s = lang === 'fr' ? frenchStem(word) : englishStem(word);
    if (cache.size >= STEM_CACHE_MAX) cache.clear();
    cache.set(word, s);
  }
  return s;
}

/** French or English, by which language's stop words are more frequent. Ties go to French. */
export function detectLang(text: string): Lang {
  let fr = 0;
  let en = 0;
  for (const w of words(text.slice(0, 20_000))) {
    if (FRENCH_STOP_WORDS.has(w)) fr++;
    if (ENGLISH_STOP_WORDS.has(w)) en++;
  }
  return en > fr ? 'en' : 'fr';
}

/** Index terms of a passage written in `lang` (stop words and 1-letter tokens dropped). */
export function analyzeText(text: string, lang: Lang): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (w.length < 2 || isStopWord(w)) continue;
    out.push(stem(w, lang));
  }
  return out;
}

/**
 * « Combien de temps » asks for a duration: it is the question's form, not its topic, so it is
 * searched as « durée » (the docs' word, with its glossary translations) and weighed as that word.
 * Left as « temps », a word rare in English docs, it carried a question's heaviest weight alone: a
 * passage quoting « Combien de temps… » as an example matched half a question about medical files.
 * « Combien de temps dure… » is the same form: its verb is the noun's own word, not a second word
 * of the question (« durée » and « dure » held together made a question on cooking look covered).
 * (« how long » already meets « durée » through the glossary.)
 */
function answerTypes(query: string): string {
  return fold(query).replace(/\bcombien de temps(?: (?:dure|durent|durera|dureront))?\b/g, 'duree');
}

/** One word of a query with the index terms it may match (French and English stems). */
export interface QueryToken {
  word: string;
  variants: string[];
  /** Index terms of dictionary words related to this one (lexicons/), matched at a lower weight. */
  related?: string[];
}

/**
 * Query analysis: the language of a question is not trusted to be the corpus's (a French question
 * on English MCP pages is in the eval set), so each word carries both stems; duplicates collapse.
 */
export function analyzeQuery(query: string): QueryToken[] {
  const seen = new Set<string>();
  const tokens: QueryToken[] = [];
  for (const w of words(answerTypes(query))) {
    if (w.length < 2 || isStopWord(w) || seen.has(w)) continue;
    seen.add(w);
    const own = [stem(w, 'fr'), stem(w, 'en')];
    const variants = [...new Set([...own, ...translate(own)])];
    tokens.push({ word: w, variants });
  }
  return tokens;
}
