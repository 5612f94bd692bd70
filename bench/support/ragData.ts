/**
 * The docs assistant run offline on labelled questions, one record per question with what the
 * learning benches need: the confidence features, the current answer's verdict and citations.
 * Shared by bench/rag-confidence.ts and bench/rag-rerank.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createDocsAssistant, type DocsCore } from '../../actors/docs/assistant.js';
import { createOfflineProvider } from '../../actors/llm/offline.js';
import { FEATURES, questionSignals, type FeatureName } from '../../actors/retrieval/confidence.js';
import { loadConfig } from '../../core/config/index.js';
import { expectsRefusal, readSet, SETS, tuningItems, type EvalItem } from './ragSets.js';

/** Tuning data of the fifth round: every set run before (the fourth set is spent too). */
export const learningItems = (): EvalItem[] => [...tuningItems(), ...readSet(SETS.fourth)];

/** Which set each of `learningItems()` comes from (0 first set, 1 fresh, 2 third's tuning half, 3 fourth). */
export const learningSetOf = (): number[] => [
  ...readSet(SETS.unseen).map(() => 0),
  ...readSet(SETS.fresh).map(() => 1),
  ...readSet(SETS.third).filter((x) => x.split === 'tune').map(() => 2),
  ...readSet(SETS.fourth).map(() => 3),
];

export async function offlineAssistant(): Promise<DocsCore> {
  const config = loadConfig({
    env: { ...process.env, CORPUS_DIR: resolve(process.env.CORPUS_DIR ?? '../../shared/corpus'), DATA_DIR: mkdtempSync(join(tmpdir(), 'palabre-learn-')), CHAT_PROVIDER: 'offline' },
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
  features: Record<FeatureName, number>;
  /** What the assistant answers today. */
  verdict: 'refused' | 'high' | 'low';
  /** Answered, and a source is a relevant document. */
  cites: boolean;
  /** The chart's answer would cite a relevant source if answered (whatever the verdict). */
  citesIfAnswered: boolean;
}

export const featureVector = (f: Record<FeatureName, number>, names: readonly FeatureName[] = FEATURES): number[] => names.map((n) => f[n]);

export async function collect(assistant: DocsCore, items: EvalItem[]): Promise<QuestionRecord[]> {
  const settings = assistant.defaults();
  const out: QuestionRecord[] = [];
  for (const it of items) {
    const hits = assistant.search(it.question, settings.k);
    const explained = hits.map((h) => assistant.retriever.explain(it.question, h.id));
    const { features } = questionSignals(it.question, hits, explained);
    const a = await assistant.ask({ question: it.question, settings });
    // Cited if answered: run once with both bounds at 0 (every question answered from its passages).
    const all = a.state === 'answered' ? a : await assistant.ask({ question: it.question, settings: { ...settings, threshold: 0, confident: 0 } });
    out.push({
      id: it.id,
      oos: expectsRefusal(it),
      rank: hits.findIndex((h) => it.relevant.includes(h.path)),
      features,
      verdict: a.state !== 'answered' ? 'refused' : a.confidence,
      cites: a.state === 'answered' && a.sources.some((s) => it.relevant.includes(s.path)),
      citesIfAnswered: all.state === 'answered' && all.sources.some((s) => it.relevant.includes(s.path)),
    });
  }
  return out;
}
