import type { QueryToken } from './analyze.js';

/**
 * The normalised score the guard trusts: the IDF-weighted share of the question's informative
 * words that a passage contains.
 *
 *   score(q, p) = Σ_{w ∈ q, w matched in p} idf(w) · m(w)  /  Σ_{w ∈ q} idf(w)
 *
 * with idf(w) = ln(1 + (N − df + 0.5) / (df + 0.5)) (BM25's idf, df = passages holding the word's
 * best stem; a word the corpus never uses has df = 0, the largest weight), m = 1 for an exact stem
 * match and FUZZY_CREDIT for a one-edit match (cognates such as requête/request). Stop words are not
 * words of the question. So 0 means "none of the question's words are here", 1 "all of them are",
 * and a question about something the corpus never mentions scores low because its rare, heavy
 * words are the ones missing. It does not depend on passage length or corpus size the way raw BM25
 * does, which is what lets one threshold hold across corpora.
 */
const FUZZY_CREDIT = 0.5;
/**
 * Credit of a word matched only through a dictionary's related word (a synonym or translation,
 * lexicons/): tunable so bench/rag-quality.ts can measure it (0 = expansion ranks but never
 * raises the guard's score).
 */
export const related = { credit: 0 };

export function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

export interface TokenWeight {
  token: QueryToken;
  weight: number;
}

/** Weights of a query's words given document frequencies of their stems. */
export function weighTokens(tokens: QueryToken[], df: (term: string) => number, n: number): TokenWeight[] {
  return tokens.map((token) => {
    const best = Math.max(0, ...token.variants.map(df));
    return { token, weight: idf(best, Math.max(n, 1)) };
  });
}

/**
 * Coverage of one passage: `exact` are the passage's terms that matched exactly, `fuzzy` the query
 * variants that matched only approximately.
 */
export function coverage(weights: TokenWeight[], exact: ReadonlySet<string>, fuzzy: ReadonlySet<string>): number {
  let total = 0;
  let got = 0;
  for (const { token, weight } of weights) {
    total += weight;
    if (token.variants.some((v) => exact.has(v))) got += weight;
    else if (token.variants.some((v) => fuzzy.has(v))) got += weight * FUZZY_CREDIT;
    else if (related.credit > 0 && token.related?.some((v) => exact.has(v))) got += weight * related.credit;
  }
  return total > 0 ? got / total : 0;
}
