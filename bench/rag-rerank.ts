/**
 * A learned reranking of BM25's first candidates, measured by cross-validation for recall@5 against
 * the current ranking (half coverage, half BM25, at most 2 passages per file), offline, on the
 * tuning data (`learningItems`):
 *
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-rerank.ts [--folds 2] [--pool 30] [--l2 0.01]
 *
 * Per passage: the features of LexicalIndex.candidates plus whether the passage is in the
 * question's language. A logistic regression (pointwise: is this passage from a relevant file?) is
 * trained on the answerable questions of the other folds; the held-out fold's candidates are
 * ordered by it, the same per-file cap applied, and recall@1 / recall@5 compared with today's order
 * on the same questions. A change is worth keeping only if every fold gains.
 */
import { loadavg } from 'node:os';
import { z } from 'zod';
import { detectLang } from '../actors/retrieval/analyze.js';
import { diversify, PASSAGE_FEATURES, ranking } from '../actors/retrieval/lexicalIndex.js';
import { fitListwise, fitLogistic, predict, stratifiedFolds } from './support/logistic.js';
import { learningItems, offlineAssistant } from './support/ragData.js';
import { expectsRefusal } from './support/ragSets.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const K = z.coerce.number().int().min(2).max(10).parse(opt('folds') ?? 2);
const pool = z.coerce.number().int().min(5).max(100).parse(opt('pool') ?? 30);
const l2 = z.coerce.number().min(0).parse(opt('l2') ?? 0.01);
const k = 5;
// `--pointwise`: one logistic regression over all candidates (is this passage relevant?) instead of the listwise fit.
const listwise = !args.includes('--pointwise');

const assistant = await offlineAssistant();
const items = learningItems().filter((it) => !expectsRefusal(it));
const FEATURE_NAMES = [...PASSAGE_FEATURES, 'langMatch'] as const;

interface Question { relevant: string[]; current: string[]; cands: Array<{ path: string; id: string; x: number[]; y: number }> }
const questions: Question[] = items.map((it) => {
  const lang = detectLang(it.question);
  const cands = assistant.retriever.candidates(it.question, pool).map((c) => {
    const p = assistant.retriever.passage(c.id)!;
    return { id: c.id, path: p.path, x: [...PASSAGE_FEATURES.map((f) => c.features[f]), p.lang === lang ? 1 : 0], y: it.relevant.includes(p.path) ? 1 : 0 };
  });
  return { relevant: it.relevant, current: assistant.search(it.question, k).map((p) => p.path), cands };
});
const folds = stratifiedFolds(questions.map(() => 1), K);

const hitAt = (paths: string[], rel: string[], n: number): boolean => paths.slice(0, n).some((p) => rel.includes(p));
const pct = (n: number, d: number): number => (d ? Math.round((1000 * n) / d) / 10 : 0);
const table: Array<Record<string, unknown>> = [];
const inPool = pct(questions.filter((q) => q.cands.some((c) => c.y === 1)).length, questions.length);
let gainsEverywhere = true;
for (let f = 0; f < K; f++) {
  const train = questions.filter((_, i) => folds[i] !== f);
  const test = questions.filter((_, i) => folds[i] === f);
  const rows = train.flatMap((q) => q.cands);
  const m = listwise ? fitListwise(train.map((q) => ({ x: q.cands.map((c) => c.x), y: q.cands.map((c) => c.y) })), { l2 }) : fitLogistic(rows.map((c) => c.x), rows.map((c) => c.y), { l2 });
  const reranked = test.map((q) => diversify([...q.cands].sort((a, b) => predict(m, b.x) - predict(m, a.x)), ranking.perFile).map((c) => c.path));
  const cur5 = test.filter((q) => hitAt(q.current, q.relevant, k)).length;
  const new5 = test.filter((q, i) => hitAt(reranked[i]!, q.relevant, k)).length;
  if (new5 <= cur5) gainsEverywhere = false;
  table.push({
    fold: f + 1,
    questions: test.length,
    'recall@1 current': pct(test.filter((q) => hitAt(q.current, q.relevant, 1)).length, test.length),
    'recall@1 learned': pct(test.filter((q, i) => hitAt(reranked[i]!, q.relevant, 1)).length, test.length),
    'recall@5 current': pct(cur5, test.length),
    'recall@5 learned': pct(new5, test.length),
    weights: m.weights.map((w, j) => `${FEATURE_NAMES[j]} ${w.toFixed(2)}`).join(' '),
  });
}
console.log(JSON.stringify({ bench: 'rag-rerank', loadavg1m: +loadavg()[0]!.toFixed(1), answerable: questions.length, folds: K, pool, l2, fit: listwise ? 'listwise' : 'pointwise', relevantInPoolPct: inPool, gainsOnEveryFold: gainsEverywhere }));
console.table(table);
