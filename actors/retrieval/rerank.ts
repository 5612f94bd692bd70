import { z } from 'zod';
import { analyzeText, type Lang, type QueryToken } from './analyze.js';
import { linearModelSchema, linearScore } from './linearModel.js';
import shipped from './rerank-model.json' with { type: 'json' };

/**
 * The learned reranking of BM25's first candidates (bench/journal/2026-12-docs-assistant.md
 * § Fifth round): a linear score over per-passage features, its weights fitted listwise (softmax over each
 * question's candidates) by bench/rag-rerank.ts on the labelled tuning questions and shipped in
 * rerank-model.json with the cross-validated figures they were kept on.
 */
export const PASSAGE_FEATURES = [
  'coverage', // the guard's score: IDF-weighted share of the question's words in the passage
  'bm25', // BM25 scaled to the first candidate
  'bm25Rank', // 1 / (1 + BM25 rank)
  'heading', // coverage by the heading path alone
  'related', // weight matched only through dictionary words (translations, synonyms)
  'length', // ln(1 + distinct terms) / 6
  'fileBest', // best coverage of another candidate of the same file
  'fileCoverage', // coverage by the whole file's terms
  'bestSentence', // coverage by the passage's best sentence: the words asked about, together
  'focus', // share of the passage's words that are the question's: about it, not mentioning it
] as const;
export type PassageFeature = (typeof PASSAGE_FEATURES)[number];

const SENTENCE_END = /(?<=[.!?;:])\s+|\n+/;

/** A passage analysed for the reranker: its heading's terms and each sentence's terms. */
export interface AnalysedPassage {
  heading: string[];
  sentences: string[][];
}

export function analysePassage(p: { section: string; text: string; lang: Lang }): AnalysedPassage {
  return { heading: analyzeText(p.section, p.lang), sentences: p.text.split(SENTENCE_END).map((s) => analyzeText(s, p.lang)) };
}

/**
 * `bestSentence` and `focus` of one analysed passage; `weights[i]` is the IDF weight of
 * `tokens[i]`. Splitting at sentence ends never splits a word, so the sentences' terms are the
 * passage's terms.
 */
export function textFeatures(tokens: readonly QueryToken[], weights: readonly number[], a: AnalysedPassage): { bestSentence: number; focus: number } {
  const total = weights.reduce((x, y) => x + y, 0) || 1;
  const wanted = new Set(tokens.flatMap((t) => t.variants));
  let best = 0;
  let terms = 0;
  let asked = 0;
  for (const sentence of a.sentences) {
    terms += sentence.length;
    const stems = new Set<string>();
    for (const t of sentence) {
      if (!wanted.has(t)) continue;
      asked++;
      stems.add(t);
    }
    if (stems.size === 0) continue;
    let got = 0;
    tokens.forEach((t, i) => {
      if (t.variants.some((v) => stems.has(v))) got += weights[i]!;
    });
    best = Math.max(best, got / total);
  }
  return { bestSentence: best, focus: terms ? asked / terms : 0 };
}

const modelSchema = linearModelSchema(PASSAGE_FEATURES, {
  /** BM25 candidates reranked (the rest follow in BM25 order). */
  pool: z.number().int().min(1).max(200),
});
export type RerankModel = z.infer<typeof modelSchema>;

export const parseRerankModel = (json: unknown): RerankModel => modelSchema.parse(json);

/** The shipped model, validated at load. */
export const RERANK_MODEL: RerankModel = parseRerankModel(shipped);

/** The passage's reranking score (only the order of scores within one question matters). */
export function rerankScore(x: Record<PassageFeature, number>, model: RerankModel = RERANK_MODEL): number {
  return linearScore(model, x);
}
