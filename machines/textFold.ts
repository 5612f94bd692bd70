/**
 * The one text fold of the docs corpus: the index and the queries (actors/retrieval/analyze.ts)
 * and the heading anchors (machines/docAnchors.ts) compare words in this form.
 */

/** Lower case without diacritics ("Sécurité" → "securite"); ligatures expanded. */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/œ/gi, 'oe')
    .replace(/æ/gi, 'ae')
    .toLowerCase();
}
