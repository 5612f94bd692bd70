import { stemmer as frenchStem } from '@orama/stemmers/french';
import { stemmer as englishStem } from '@orama/stemmers/english';

/** Snowball is the cost of indexing; a corpus has few distinct words, so stems are memoised. */
const STEM_CACHE_MAX = 200_000;
const stemCache = { fr: new Map<string, string>(), en: new Map<string, string>() };

export function stem(word: string, lang: 'fr' | 'en'): string {
  const cache = stemCache[lang];
  let s = cache.get(word);
  if (s === undefined) {
    s = lang === 'fr' ? frenchStem(word) : englishStem(word);
    if (cache.size >= STEM_CACHE_MAX) cache.clear();
    cache.set(word, s);
  }
  return s;
}
