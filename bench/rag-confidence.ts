/**
 * Learns the chat guard's confidence (actors/retrieval/confidence.ts) and measures it by
 * cross-validation against the hand-set band, offline, on the tuning data (every labelled set run
 * before: `learningItems`, 421 questions):
 *
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-confidence.ts [--folds 5] [--features best,union,…] [--write]
 *
 * For each outer fold: a logistic regression is trained on the other folds; its two bounds are
 * chosen on those folds only (from inner cross-validated probabilities): the low bound refuses at
 * most `--ans-refused` (3 %) of their answerable questions, the high bound lets at most
 * `--oos-high` (10 %) of their out-of-scope questions through as "high" (stricter than the targets,
 * 5 % and 12 %, because the held-out fold is small). Then the held-out fold is scored with them,
 * next to the current rule (score band 0.2 / 0.5 + hand cues) on the same fold. `--write` trains
 * on all the data, chooses the bounds from the pooled out-of-fold probabilities, and writes
 * actors/retrieval/confidence-model.json with the figures.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { z } from 'zod';
import { FEATURES, type FeatureName } from '../actors/retrieval/confidence.js';
import { fitLogistic, predict, stratifiedFolds } from './support/logistic.js';
import { collect, featureVector, learningItems, learningSetOf, offlineAssistant, type QuestionRecord } from './support/ragData.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
// `--by-set`: one fold per labelled set (written at different times): does it carry over to a new set?
const bySet = args.includes('--by-set');
const K = bySet ? 4 : z.coerce.number().int().min(2).max(10).parse(opt('folds') ?? 5);
const oosTarget = z.coerce.number().min(0).max(1).parse(opt('oos-high') ?? 0.1);
const ansTarget = z.coerce.number().min(0).max(1).parse(opt('ans-refused') ?? 0.03);
const l2 = z.coerce.number().min(0).parse(opt('l2') ?? 0.01);
const names = (opt('features')?.split(',') ?? [...FEATURES]).map((f) => z.enum(FEATURES).parse(f)) as FeatureName[];

const INNER = 5;
const assistant = await offlineAssistant();
const records = await collect(assistant, learningItems());
const labels = records.map((r) => (r.oos ? 0 : 1));
const folds = bySet ? learningSetOf() : stratifiedFolds(labels, K);
const X = records.map((r) => featureVector(r.features, names));

/** Bounds on training probabilities: refuse under `low`, "high" from `high`. */
function chooseBounds(p: number[], y: number[]): { low: number; high: number } {
  const ans = p.filter((_, i) => y[i] === 1).sort((a, b) => a - b);
  const oos = p.filter((_, i) => y[i] === 0).sort((a, b) => b - a);
  const m = Math.floor(ansTarget * ans.length);
  const low = ans[m] ?? 0; // m answerable strictly under it
  const o = Math.floor(oosTarget * oos.length);
  const high = (oos[o] ?? 0) + 1e-6; // o out-of-scope at or over it
  return { low: Math.min(low, high), high };
}

/** Cross-validated probabilities of `rows` (inner folds). */
function innerProbabilities(rows: number[]): number[] {
  const inner = stratifiedFolds(rows.map((i) => labels[i]!), INNER);
  const p = new Array<number>(rows.length).fill(0);
  for (let f = 0; f < INNER; f++) {
    const train = rows.filter((_, j) => inner[j] !== f);
    const m = fitLogistic(train.map((i) => X[i]!), train.map((i) => labels[i]!), { l2 });
    rows.forEach((i, j) => {
      if (inner[j] === f) p[j] = predict(m, X[i]!);
    });
  }
  return p;
}

type Verdict = QuestionRecord['verdict'];
interface Figures { n: string; ansRefused: number; ansHigh: number; oosHigh: number; oosRefused: number; cites: number }
const pct = (n: number, d: number): number => (d ? Math.round((1000 * n) / d) / 10 : 0);
function figures(rows: number[], verdict: (i: number) => Verdict): Figures {
  const ans = rows.filter((i) => !records[i]!.oos);
  const oos = rows.filter((i) => records[i]!.oos);
  const answered = ans.filter((i) => verdict(i) !== 'refused');
  return {
    n: `${ans.length}+${oos.length}`,
    ansRefused: pct(ans.filter((i) => verdict(i) === 'refused').length, ans.length),
    ansHigh: pct(ans.filter((i) => verdict(i) === 'high').length, ans.length),
    oosHigh: pct(oos.filter((i) => verdict(i) === 'high').length, oos.length),
    oosRefused: pct(oos.filter((i) => verdict(i) === 'refused').length, oos.length),
    // Cited relevant among answered: the offline answer is the same whatever the band.
    cites: pct(answered.filter((i) => records[i]!.citesIfAnswered).length, answered.length),
  };
}
const band = (p: number, b: { low: number; high: number }): Verdict => (p < b.low ? 'refused' : p >= b.high ? 'high' : 'low');

const oof = new Array<number>(records.length).fill(0);
const learned = new Array<Verdict>(records.length).fill('low');
const table: Array<Record<string, unknown>> = [];
const all = records.map((_, i) => i);
for (let f = 0; f < K; f++) {
  const train = all.filter((i) => folds[i] !== f);
  const test = all.filter((i) => folds[i] === f);
  const bounds = chooseBounds(innerProbabilities(train), train.map((i) => labels[i]!));
  const m = fitLogistic(train.map((i) => X[i]!), train.map((i) => labels[i]!), { l2 });
  for (const i of test) {
    oof[i] = predict(m, X[i]!);
    learned[i] = band(oof[i]!, bounds);
  }
  table.push({ fold: f + 1, rule: 'current (0.2 / 0.5 + cues)', ...figures(test, (i) => records[i]!.verdict) });
  table.push({ fold: f + 1, rule: `learned (${bounds.low.toFixed(3)} / ${bounds.high.toFixed(3)})`, ...figures(test, (i) => learned[i]!) });
}
const pooledBounds = chooseBounds(oof, labels);
table.push({ fold: 'all', rule: 'current (0.2 / 0.5 + cues)', ...figures(all, (i) => records[i]!.verdict) });
table.push({ fold: 'all', rule: 'learned, each fold with its own bounds', ...figures(all, (i) => learned[i]!) });
console.log(JSON.stringify({ bench: 'rag-confidence', loadavg1m: +loadavg()[0]!.toFixed(1), questions: records.length, folds: K, features: names, l2, oosTarget, ansTarget, pooledBounds }));
console.table(table);

if (args.includes('--write')) {
  const m = fitLogistic(X, labels, { l2 });
  const model = {
    version: 1,
    trainedOn: `${records.length} labelled questions (bench/rag-confidence.ts, learningItems)`,
    features: names,
    mean: m.mean.map((v) => +v.toFixed(6)),
    scale: m.scale.map((v) => +v.toFixed(6)),
    weights: m.weights.map((v) => +v.toFixed(6)),
    bias: +m.bias.toFixed(6),
    bounds: { low: +pooledBounds.low.toFixed(3), high: +pooledBounds.high.toFixed(3) },
    cv: { folds: K, oosTarget, ansTarget, outOfFold: figures(all, (i) => band(oof[i]!, pooledBounds)) },
  };
  writeFileSync('actors/retrieval/confidence-model.json', JSON.stringify(model, null, 2) + '\n');
  console.log('wrote actors/retrieval/confidence-model.json', JSON.stringify(model.bounds));
}
