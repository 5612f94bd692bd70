import { z } from 'zod';
import { analyzeQuery, detectLang, type Lang } from './analyze.js';
import { answerTypeOutsideDocs, type AnswerType } from './answerType.js';
import { answerTypeUnmet, nameNotClose } from './expectedAnswer.js';
import shipped from './confidence-model.json' with { type: 'json' };
import type { RelevanceSignals } from '../../machines/chat.js';
import { linearModelSchema, linearScore } from './linearModel.js';
import { capitalisedNames, relevanceSignals, type LexicalCues } from './relevance.js';

/**
 * Whether the documentation answers a question, as one calibrated probability: a logistic
 * regression over cues the retriever already computes (bench/journal/2026-12-docs-assistant.md
 * § Fifth round).
 * The weights are learned by bench/rag-confidence.ts on the labelled tuning questions and ship in
 * confidence-model.json with the cross-validated figures they were chosen on; this file only reads
 * them. The chat guard answers with confidence "high" from the admin's high bound on.
 */

/** One query word against one retrieved passage (LexicalIndex.explain). */
export interface ExplainedWord {
  word: string;
  df: number;
  weight: number;
  matched: boolean;
}

/** A retrieved passage as the confidence reads it; without `text`, the sentence features are 0. */
export interface RetrievedPassage {
  score: number;
  lang: Lang;
  path: string;
  text?: string;
}

export interface ConfidenceEvidence {
  question: string;
  /** The retrieved passages, in rank order: their normalised score, language, file and text. */
  passages: ReadonlyArray<RetrievedPassage>;
  /** `explained[i]`: the question's words against passage i. */
  explained: ReadonlyArray<ReadonlyArray<ExplainedWord>>;
  cues: LexicalCues;
}

/**
 * The features, each in [0, 1] or close: names are stable (the model file lists the ones it was
 * trained on, in order, and refuses to load otherwise).
 */
export const FEATURES = [
  'best', // best normalised score (coverage.ts)
  'margin', // best minus the second best: one passage standing out
  'meanTop', // mean score of the retrieved passages
  'union', // share of the question's weight matched by at least one retrieved passage
  'unseenShare', // share of the weight in words the corpus never uses
  'unknownName', // a capitalised name the corpus never uses
  'nameNotRetrieved', // a capitalised name none of the retrieved passages holds
  'liveData', // asks about the world now (« demain »)
  'langMismatch', // the question's language is not the best passage's
  'files', // distinct files among the retrieved passages, over their number
  'heaviestMissing', // the question's heaviest word is in none of the retrieved passages
  'missingShare', // weight share of the heaviest word missing from every retrieved passage
  // Number of informative words, ln(1 + n) / 3. Computed, not in the shipped model: the labelled
  // sets' answerable questions are longer than their out-of-scope ones, and the fifth set's long
  // traps showed it learns how the sets were written (§ Sixth round).
  'words',
  // expectedAnswer.ts (§ Seventh round): the question asks for a figure, a date, a version… that none
  // of the closest sentences holds (a veto, as answer types are: questionSignals); a specific name
  // of the question the corpus knows is in none of the closest sentences.
  'typeUnmet',
  'nameNotClose',
] as const;
export type FeatureName = (typeof FEATURES)[number];

export function confidenceFeatures(e: ConfidenceEvidence): Record<FeatureName, number> {
  const scores = e.passages.map((p) => p.score).sort((a, b) => b - a);
  const best = scores[0] ?? 0;
  const bestIdx = e.passages.findIndex((p) => p.score === best);
  const words = e.explained[0] ?? [];
  const total = words.reduce((n, w) => n + w.weight, 0) || 1;
  const inAny = (word: string): boolean => e.explained.some((p) => p.some((w) => w.word === word && w.matched));
  const union = words.filter((w) => inAny(w.word)).reduce((n, w) => n + w.weight, 0) / total;
  const heaviest = Math.max(0, ...words.map((w) => w.weight));
  const missing = words.filter((w) => !inAny(w.word));
  const best1 = e.passages[bestIdx];
  const texts = e.passages.filter((p): p is RetrievedPassage & { text: string } => p.text !== undefined);
  const tokens = analyzeQuery(e.question);
  // explain() weighs the same analysed tokens in the same order; by word in case a caller differs.
  const weightOf = new Map(words.map((w) => [w.word, w]));
  const weights = tokens.map((t) => weightOf.get(t.word)?.weight ?? 0);
  const known = tokens.map((t) => (weightOf.get(t.word)?.df ?? 0) > 0);
  return {
    best,
    margin: best - (scores[1] ?? 0),
    meanTop: scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : 0,
    union,
    unseenShare: e.cues.unseenShare,
    unknownName: e.cues.unknownNames.length > 0 ? 1 : 0,
    nameNotRetrieved: e.cues.namesNotRetrieved.length > 0 ? 1 : 0,
    liveData: e.cues.liveData ? 1 : 0,
    langMismatch: best1 && best1.lang !== detectLang(e.question) ? 1 : 0,
    files: e.passages.length ? new Set(e.passages.map((p) => p.path)).size / e.passages.length : 0,
    heaviestMissing: words.length > 0 && missing.some((w) => w.weight === heaviest) ? 1 : 0,
    missingShare: Math.max(0, ...missing.map((w) => w.weight)) / total,
    words: Math.log(1 + words.length) / 3,
    typeUnmet: texts.length ? answerTypeUnmet(e.question, tokens, weights, texts) : 0,
    nameNotClose: texts.length ? nameNotClose(capitalisedNames(e.question), tokens, weights, known, texts) : 0,
  };
}

/** The model file (confidence-model.json): standardisation, weights, and the bounds chosen by CV. */
const modelSchema = linearModelSchema(FEATURES, {
  bias: z.number(),
  /**
   * The operating points bench/rag-confidence.ts chose: `high` is CHAT_SCORE_CONFIDENT's default,
   * `low` (on the best passage's score, § Ninth round) CHAT_SCORE_THRESHOLD's.
   */
  bounds: z.object({ high: z.number().min(0).max(1), low: z.number().min(0).max(1) }),
});
export type ConfidenceModel = z.infer<typeof modelSchema>;

/** Validates a model file's content (zod's message names what is wrong). */
export const parseConfidenceModel = (json: unknown): ConfidenceModel => modelSchema.parse(json);

/** The shipped model, validated at load: a malformed file stops the start with zod's message. */
export const CONFIDENCE_MODEL: ConfidenceModel = parseConfidenceModel(shipped);

/** Probability that the documentation answers the question, in [0, 1]. */
export function probability(x: Record<FeatureName, number>, model: ConfidenceModel = CONFIDENCE_MODEL): number {
  return 1 / (1 + Math.exp(-(model.bias + linearScore(model, x))));
}

/**
 * Everything the chat guard reads about a question, from its retrieved passages (in rank order)
 * and the question's words against each (`explained[i]` for passage i): the lexical cues
 * (relevance.ts), the features and their probability. A question asking for a price, another
 * country's facts or live figures (answerType.ts) gets probability 0: never "high", whatever its
 * words match; refusing stays the lexical rule's call.
 */
export function questionSignals(
  question: string,
  passages: ReadonlyArray<RetrievedPassage>,
  explained: ReadonlyArray<ReadonlyArray<ExplainedWord>>,
  model: ConfidenceModel = CONFIDENCE_MODEL,
): { signals: RelevanceSignals; features: Record<FeatureName, number>; answerType: AnswerType | null } {
  const bestAt = passages.reduce((b, p, i) => (p.score > passages[b]!.score ? i : b), 0);
  const cues = relevanceSignals(question, [...(explained[bestAt] ?? [])], [...explained]);
  const features = confidenceFeatures({ question, passages, explained, cues });
  const answerType = answerTypeOutsideDocs(question);
  const kept = passages.length === 0 || answerType !== null || features.typeUnmet === 1;
  const inScope = kept ? 0 : Math.round(probability(features, model) * 1000) / 1000;
  return { signals: { ...cues, inScope }, features, answerType };
}
