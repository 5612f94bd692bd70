/**
 * The docs assistant run offline on labelled questions, one record per question with what the
 * learning benches need: the confidence features, the rank of the first relevant passage, and
 * whether the offline answer cites a relevant source.
 * Shared by bench/rag-confidence.ts and bench/rag-rerank.ts.
 */
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createDocsAssistant, type DocsCore } from '../../actors/docs/assistant.js';
import { createOfflineProvider } from '../../actors/llm/offline.js';
import { FEATURES, questionSignals, type FeatureName } from '../../actors/retrieval/confidence.js';
import { ranking } from '../../actors/retrieval/lexicalIndex.js';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { expectsRefusal, readSet, SETS, tuningItems, type EvalItem } from './ragSets.js';

/** Tuning data: every set already run once as held-out (the fourth to eighth sets included), so none of it is held-out any more. */
export const learningItems = (): EvalItem[] => [...tuningItems(), ...readSet(SETS.fourth), ...readSet(SETS.fifth), ...readSet(SETS.sixth), ...readSet(SETS.seventh), ...readSet(SETS.eighth)];

/** The labelled sets of `learningItems()`, in order: one cross-validation fold each (`--by-set`). */
export const LEARNING_SETS = ['first set', 'fresh', 'third, tuning half', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth'] as const;

/** Which set each of `learningItems()` comes from: its index in LEARNING_SETS. */
export const learningSetOf = (): number[] => [
  ...readSet(SETS.unseen).map(() => 0),
  ...readSet(SETS.fresh).map(() => 1),
  ...readSet(SETS.third).filter((x) => x.split === 'tune').map(() => 2),
  ...readSet(SETS.fourth).map(() => 3),
  ...readSet(SETS.fifth).map(() => 4),
  ...readSet(SETS.sixth).map(() => 5),
  ...readSet(SETS.seventh).map(() => 6),
  ...readSet(SETS.eighth).map(() => 7),
];

/** The questions on the project's own docs/ (another corpus, all spent): a cross-corpus check. */
export const docsItems = (): EvalItem[] => readSet(SETS.docs);

/**
 * `dir` resolved, or exit with a message when it is not a folder: a wrong relative CORPUS_DIR
 * (`../../shared/corpus` is for a worktree under /work/wt; from /work/main it is `../shared/corpus`)
 * would index nothing and print a run of refusals that look like figures.
 */
export function existingCorpus(dir: string): string {
  const abs = resolve(dir);
  // An empty CORPUS_DIR (`CORPUS_DIR= npx tsx …`) resolves to the working directory: the whole
  // repository indexed, and figures printed as if for a corpus.
  if (dir.trim() === '' || !existsSync(abs) || !statSync(abs).isDirectory()) {
    console.error(`corpus folder not found: ${dir.trim() === '' ? '(empty CORPUS_DIR)' : abs} — set CORPUS_DIR to the documentation folder (e.g. CORPUS_DIR=../shared/corpus from the repository root)`);
    process.exit(2);
  }
  return abs;
}

/** The assistant offline on `corpus` (default CORPUS_DIR, else the shared corpus). */
export async function offlineAssistant(corpus?: string): Promise<DocsCore> {
  const config = loadPalabreConfig({
    env: { ...process.env, CORPUS_DIR: existingCorpus(corpus ?? process.env.CORPUS_DIR ?? '../../shared/corpus'), DATA_DIR: mkdtempSync(join(tmpdir(), 'palabre-learn-')), CHAT_PROVIDER: 'offline' },
    dotenvPath: null,
  });
  const offline = createOfflineProvider();
  const assistant = createDocsAssistant({ config, providers: { get: () => offline, resolve: () => offline, available: () => ['offline'] }, persist: false });
  await assistant.ready();
  return assistant;
}

export interface QuestionRecord {
  id: string;
  oos: boolean;
  /** Rank of the first relevant passage among the k retrieved (−1: none). */
  rank: number;
  /**
   * Best score among the passages shown, on which the chart refuses (machines/chat.ts); the
   * features' `best` is over the passages the confidence reads, which may hold a second passage of
   * a file the shown list left out (`ranking.perFile`).
   */
  shownBest: number;
  features: Record<FeatureName, number>;
  /**
   * The question asks for a price, another country's facts or live figures (answerType.ts), or an
   * answer type none of its closest sentences holds (expectedAnswer.ts): never "high".
   */
  outside: boolean;
  /** The answer, given whatever the confidence, cites a relevant source (offline, extractive). */
  citesIfAnswered: boolean;
}

/**
 * The hand cues the chart keeps next to the learned probability (machines/chat.ts): a question
 * with 75 % of its weight in words the corpus never uses is refused, and one with 50 %, a
 * capitalised name unknown or not retrieved, or asking for live data is never "high".
 */
export function cueVetoes(f: Record<FeatureName, number>): { refuse: boolean; noHigh: boolean } {
  return { refuse: f.unseenShare >= 0.75, noHigh: f.unseenShare >= 0.5 || f.unknownName === 1 || f.nameNotRetrieved === 1 || f.liveData === 1 };
}

/**
 * The hand-written guard (the baseline), from the same features: refused under a best score of `low`
 * (default 0.2) or with 75 % of the weight in unknown words; "high" from
 * 0.5 with under 50 % unknown, no unknown or unretrieved name, no live data; "low" otherwise.
 */
export function handRule(f: Record<FeatureName, number>, low = 0.2): 'refused' | 'high' | 'low' {
  if (f.best < low || f.unseenShare >= 0.75) return 'refused';
  if (f.best >= 0.5 && f.unseenShare < 0.5 && !f.unknownName && !f.nameNotRetrieved && !f.liveData) return 'high';
  return 'low';
}

export const featureVector = (f: Record<FeatureName, number>, names: readonly FeatureName[] = FEATURES): number[] => names.map((n) => f[n]);

/** `rerank`: with the learned reranker (the shipped ranking) or the former one (the baseline). */
export async function collect(assistant: DocsCore, items: EvalItem[], rerank = true, featuresPerFile?: number): Promise<QuestionRecord[]> {
  const before = ranking.rerank;
  ranking.rerank = rerank;
  const settings = assistant.defaults();
  const out: QuestionRecord[] = [];
  const judgedPerFile = ranking.judgedPerFile;
  for (const it of items) {
    // The passages shown and those the confidence reads (Retriever.searchJudged), as the chart
    // gets them; `featuresPerFile`: the latter under another per-file cap.
    if (featuresPerFile !== undefined) ranking.judgedPerFile = featuresPerFile;
    const { passages: hits, judged } = assistant.retriever.searchJudged(it.question, settings.k);
    ranking.judgedPerFile = judgedPerFile;
    const explained = judged.map((h) => assistant.retriever.explain(it.question, h.id));
    const { features, answerType } = questionSignals(it.question, judged, explained);
    // Both bounds at 0: every question is answered (but those with 75 % of their weight in unknown
    // words), from the passages the chart sends, to see what it would cite whatever its confidence
    // and whatever low bound a bench tries (at the default bound, a question under it would count
    // as citing nothing, and the benches that move the bound could not see what it would cite).
    const a = await assistant.ask({ question: it.question, settings: { ...settings, threshold: 0, confident: 0 } });
    out.push({
      id: it.id,
      oos: expectsRefusal(it),
      rank: hits.findIndex((h) => it.relevant.includes(h.path)),
      shownBest: Math.max(0, ...hits.map((h) => h.score)),
      features,
      outside: answerType !== null || features.typeUnmet === 1,
      citesIfAnswered: a.state === 'answered' && a.sources.some((s) => it.relevant.includes(s.path)),
    });
  }
  ranking.rerank = before;
  return out;
}
