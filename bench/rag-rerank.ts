/**
 * The learned reranking of BM25's first candidates (actors/retrieval/rerank.ts), measured by
 * cross-validation for recall@5 against the ranking of rounds 3–4 (half coverage, half BM25, over
 * 20 candidates), both with at most 2 passages per file, offline, on the answerable tuning
 * questions (`learningItems`):
 *
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-rerank.ts [--folds 2|5 | --by-set] [--pool 30] [--features coverage,bm25,…] [--lang] [--boost B] [--translations N] [--synonyms N] [--per-file N] [--write]
 *
 * For each fold, a linear score over the passage features (rerank.ts PASSAGE_FEATURES; `--lang`
 * adds whether the passage is in the question's language) is fitted listwise on the other folds'
 * candidates (softmax over each question's candidates, relevant ones' likelihood maximised); the
 * held-out fold's candidates are ordered by it, capped per file, and recall@1 / recall@5 compared
 * with the former ranking on the same questions. `--by-set`: one fold per labelled set. `--write`
 * fits on every answerable question and writes actors/retrieval/rerank-model.json with the CV
 * figures of the run.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { z } from 'zod';
import { detectLang } from '../actors/retrieval/analyze.js';
import { diversify, ranking } from '../actors/retrieval/lexicalIndex.js';
import { PASSAGE_FEATURES, type PassageFeature } from '../actors/retrieval/rerank.js';
import { fitListwise, predict, stratifiedFolds } from './support/logistic.js';
import { LEARNING_SETS, learningItems, learningSetOf, offlineAssistant } from './support/ragData.js';
import { expectsRefusal } from './support/ragSets.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const bySet = args.includes('--by-set');
const K = bySet ? LEARNING_SETS.length : z.coerce.number().int().min(2).max(10).parse(opt('folds') ?? 2);
const pool = z.coerce.number().int().min(5).max(100).parse(opt('pool') ?? 30);
const l2 = z.coerce.number().min(0).parse(opt('l2') ?? 0.01);
const names = (opt('features')?.split(',') ?? [...PASSAGE_FEATURES]).map((f) => z.enum(PASSAGE_FEATURES).parse(f)) as PassageFeature[];
// Off by default: the labelled sets ask many questions in the other language than the page on
// purpose, so this weight would learn how the sets were written rather than how people ask.
const withLang = args.includes('--lang');
const k = 5;
// Retrieval variants the candidates come from (lexicalIndex.ts `ranking`), each measured the same
// way: the reranker refitted on the other folds, recall on the left-out one.
const num = (name: string, max: number): number | undefined => (opt(name) === undefined ? undefined : z.coerce.number().min(0).max(max).parse(opt(name)));
ranking.expansion.boost = num('boost', 1) ?? ranking.expansion.boost;
ranking.expansion.translations = num('translations', 10) ?? ranking.expansion.translations;
ranking.expansion.synonyms = num('synonyms', 10) ?? ranking.expansion.synonyms;
ranking.perFile = num('per-file', 10) ?? ranking.perFile;

const assistant = await offlineAssistant();
const all = learningItems();
const keep = all.map((it) => !expectsRefusal(it));
const items = all.filter((_, i) => keep[i]);
const setOf = learningSetOf().filter((_, i) => keep[i]);

interface Question { relevant: string[]; former: string[]; cands: Array<{ path: string; x: number[]; y: number }> }
ranking.rerank = false;
const questions: Question[] = items.map((it) => {
  const lang = detectLang(it.question);
  const cands = assistant.retriever.candidates(it.question, pool).rows.map((c) => {
    const p = assistant.retriever.passage(c.id)!;
    return { path: p.path, x: [...names.map((f) => c.features[f]), ...(withLang ? [p.lang === lang ? 1 : 0] : [])], y: it.relevant.includes(p.path) ? 1 : 0 };
  });
  return { relevant: it.relevant, former: assistant.search(it.question, k).map((p) => p.path), cands };
});
ranking.rerank = true;
const folds = bySet ? setOf : stratifiedFolds(questions.map(() => 1), K);

const hitAt = (paths: string[], rel: string[], n: number): boolean => paths.slice(0, n).some((p) => rel.includes(p));
const pct = (n: number, d: number): number => (d ? Math.round((1000 * n) / d) / 10 : 0);
const lists = (qs: Question[]) => qs.map((q) => ({ x: q.cands.map((c) => c.x), y: q.cands.map((c) => c.y) }));
const table: Array<Record<string, number | string>> = [];
let gainsEverywhere = true;
for (let f = 0; f < K; f++) {
  const train = questions.filter((_, i) => folds[i] !== f);
  const test = questions.filter((_, i) => folds[i] === f);
  const m = fitListwise(lists(train), { l2 });
  const reranked = test.map((q) => diversify([...q.cands].map((c, i) => ({ ...c, id: `${c.path}:${i}`, s: predict(m, c.x) })).sort((a, b) => b.s - a.s), ranking.perFile).map((c) => c.path));
  const former5 = test.filter((q) => hitAt(q.former, q.relevant, k)).length;
  const learned5 = test.filter((q, i) => hitAt(reranked[i]!, q.relevant, k)).length;
  if (learned5 <= former5) gainsEverywhere = false;
  table.push({
    fold: f + 1,
    questions: test.length,
    'recall@1 former': pct(test.filter((q) => hitAt(q.former, q.relevant, 1)).length, test.length),
    'recall@1 learned': pct(test.filter((q, i) => hitAt(reranked[i]!, q.relevant, 1)).length, test.length),
    'recall@5 former': pct(former5, test.length),
    'recall@5 learned': pct(learned5, test.length),
  });
}
const summary = { bench: 'rag-rerank', loadavg1m: +loadavg()[0]!.toFixed(1), answerable: questions.length, folds: bySet ? 'by set' : K, pool, l2, expansion: ranking.expansion, perFile: ranking.perFile, features: [...names, ...(withLang ? ['langMatch'] : [])], relevantInPoolPct: pct(questions.filter((q) => q.cands.some((c) => c.y === 1)).length, questions.length), gainsOnEveryFold: gainsEverywhere };
console.log(JSON.stringify(summary));
console.table(table);

if (args.includes('--write')) {
  if (withLang) throw new Error('--write: the shipped model has no language feature (see --lang)');
  const m = fitListwise(lists(questions), { l2 });
  const model = {
    version: 1,
    trainedOn: `${questions.length} answerable labelled questions (bench/rag-rerank.ts, learningItems)`,
    pool,
    features: names,
    mean: m.mean.map((v) => +v.toFixed(6)),
    scale: m.scale.map((v) => +v.toFixed(6)),
    weights: m.weights.map((v) => +v.toFixed(6)),
    cv: { folds: summary.folds, perFold: table },
  };
  writeFileSync('actors/retrieval/rerank-model.json', JSON.stringify(model, null, 2) + '\n');
  console.log('wrote actors/retrieval/rerank-model.json', model.features.map((f, i) => `${f} ${model.weights[i]!.toFixed(2)}`).join(', '));
}
