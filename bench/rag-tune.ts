/**
 * Fits the retriever's general ranking parameters (actors/retrieval/lexicalIndex.ts `ranking`) on
 * the tuning data with 2-fold cross-validation, offline, the whole assistant running as in
 * bench/rag-quality.ts:
 *
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-tune.ts [--rounds N] [--params bm25.k,heading,…]
 *
 * The tuning questions are split in two folds (alternately, so each fold holds every set and topic).
 * For each parameter in turn, over its grid: the value best on fold A is scored on fold B against
 * the current value, and the value best on B is scored on A. The parameter changes only when both
 * cross-fold scores improve and out-of-scope questions answered "high" do not rise on either fold;
 * then it takes the better of the two values on the whole tuning data, and the next parameters are
 * fitted from there. Objective: recall@5 + answered questions citing a relevant source (the two
 * missed targets, both in %). Prints one JSON line per parameter and the final table.
 */
import { loadavg } from 'node:os';
import { extractive } from '../actors/docs/offlineAnswer.js';
import { ranking } from '../actors/retrieval/lexicalIndex.js';
import { learningItems, offlineAssistant } from './support/ragData.js';
import { expectsRefusal } from './support/ragSets.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const rounds = Number(opt('rounds') ?? 1) || 1;
const only = opt('params')?.split(',');
const assistant = await offlineAssistant();
const settings = assistant.defaults();
const items = learningItems();

interface Outcome { fold: 0 | 1; oos: boolean; rank: number; verdict: 'refused' | 'high' | 'low'; cites: boolean }
interface Score { r1: number; r5: number; cites: number; ansHigh: number; oosHigh: number; oosHighN: number; objective: number }

async function outcomes(): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const [i, it] of items.entries()) {
    const hits = assistant.search(it.question, settings.k);
    const a = await assistant.ask({ question: it.question, settings });
    out.push({
      fold: (i % 2) as 0 | 1,
      oos: expectsRefusal(it),
      rank: hits.findIndex((h) => it.relevant.includes(h.path)),
      verdict: a.state !== 'answered' ? 'refused' : a.confidence,
      cites: a.state === 'answered' && a.sources.some((s) => it.relevant.includes(s.path)),
    });
  }
  return out;
}

const pct = (n: number, d: number): number => (d ? (100 * n) / d : 0);
function score(all: Outcome[], fold?: 0 | 1): Score {
  const xs = all.filter((o) => fold === undefined || o.fold === fold);
  const ans = xs.filter((o) => !o.oos);
  const oos = xs.filter((o) => o.oos);
  const answered = ans.filter((o) => o.verdict !== 'refused');
  const r5 = pct(ans.filter((o) => o.rank >= 0 && o.rank < settings.k).length, ans.length);
  const cites = pct(answered.filter((o) => o.cites).length, answered.length);
  const oosHighN = oos.filter((o) => o.verdict === 'high').length;
  return {
    r1: pct(ans.filter((o) => o.rank === 0).length, ans.length),
    r5,
    cites,
    ansHigh: pct(ans.filter((o) => o.verdict === 'high').length, ans.length),
    oosHigh: pct(oosHighN, oos.length),
    oosHighN,
    objective: r5 + cites,
  };
}

/** Feedback settings tried: [first passages, terms added, their weight]. */
const FEEDBACK: Array<[number, number, number]> = [[0, 8, 0.2], [1, 5, 0.1], [1, 8, 0.2], [2, 5, 0.1], [3, 5, 0.1], [3, 8, 0.2], [5, 8, 0.1], [3, 12, 0.05]];
type Param = { name: string; get: () => number; set: (v: number) => void; grid: number[] };
const grids: Param[] = [
  { name: 'bm25.k', get: () => ranking.bm25.k, set: (v) => (ranking.bm25.k = v), grid: [0.6, 0.9, 1.2, 1.5, 2] },
  { name: 'bm25.b', get: () => ranking.bm25.b, set: (v) => (ranking.bm25.b = v), grid: [0.3, 0.5, 0.7, 0.85, 1] },
  { name: 'bm25.d', get: () => ranking.bm25.d, set: (v) => (ranking.bm25.d = v), grid: [0, 0.25, 0.5, 1] },
  { name: 'heading', get: () => ranking.heading, set: (v) => (ranking.heading = v), grid: [1, 1.5, 2, 3] },
  { name: 'coverage', get: () => ranking.coverage, set: (v) => (ranking.coverage = v), grid: [0.3, 0.4, 0.5, 0.6, 0.7] },
  { name: 'pool', get: () => ranking.pool, set: (v) => (ranking.pool = v), grid: [10, 20, 30, 50] },
  { name: 'expansion.boost', get: () => ranking.expansion.boost, set: (v) => (ranking.expansion.boost = v), grid: [0.1, 0.2, 0.3, 0.4] },
  // Pseudo-relevance feedback (RM3-like), off by default: one grid over (passages, terms, weight),
  // the value is the index in FEEDBACK (0 = off). Fifth round: measured here.
  {
    name: 'feedback',
    get: () => FEEDBACK.findIndex(([d, t, b]) => (d === 0 && ranking.feedback.docs === 0) || (d === ranking.feedback.docs && t === ranking.feedback.terms && b === ranking.feedback.boost)),
    set: (v) => {
      const [docs, terms, boost] = FEEDBACK[v]!;
      ranking.feedback = { docs, terms, boost };
    },
    grid: FEEDBACK.map((_, i) => i),
  },
  { name: 'fileWeight', get: () => ranking.fileWeight, set: (v) => (ranking.fileWeight = v), grid: [0, 0.05, 0.1, 0.2] },
  { name: 'perFile', get: () => ranking.perFile, set: (v) => (ranking.perFile = v), grid: [0, 1, 2, 3] },
  // The offline answer's sentence choice (actors/docs/offlineAnswer.ts): what "cites relevant" measures.
  { name: 'extractive.leads', get: () => extractive.leads, set: (v) => (extractive.leads = v), grid: [1, 2, 3] },
  { name: 'extractive.leadShare', get: () => extractive.leadShare, set: (v) => (extractive.leadShare = v), grid: [0, 0.15, 0.3, 0.5] },
];
const params = grids.filter((p) => !only || only.includes(p.name));

const round1 = (s: Score): Record<string, number> => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, Math.round(v * 10) / 10]));
const baseline = score(await outcomes());
const table: Array<Record<string, unknown>> = [];
for (let r = 0; r < rounds; r++) {
  for (const p of params) {
    const current = p.get();
    const runs = new Map<number, Outcome[]>();
    for (const v of new Set([current, ...p.grid])) {
      p.set(v);
      runs.set(v, await outcomes());
    }
    p.set(current);
    // Best on one fold (the current value unless another is strictly better), scored on the other.
    const bestOn = (fold: 0 | 1): number =>
      [...runs.keys()].reduce((b, v) => (score(runs.get(v)!, fold).objective > score(runs.get(b)!, fold).objective ? v : b), current);
    const fitA = bestOn(0), fitB = bestOn(1);
    const cross = (fit: number, fold: 0 | 1): { gain: number; oosUp: boolean } => {
      const s = score(runs.get(fit)!, fold), s0 = score(runs.get(current)!, fold);
      return { gain: s.objective - s0.objective, oosUp: s.oosHighN > s0.oosHighN };
    };
    const onB = cross(fitA, 1), onA = cross(fitB, 0);
    const kept = onB.gain > 0 && onA.gain > 0 && !onB.oosUp && !onA.oosUp;
    const chosen = kept ? (score(runs.get(fitA)!).objective >= score(runs.get(fitB)!).objective ? fitA : fitB) : current;
    p.set(chosen);
    const row = {
      round: r + 1, param: p.name, current, fitOnA: fitA, gainOnB: Math.round(onB.gain * 10) / 10, fitOnB: fitB, gainOnA: Math.round(onA.gain * 10) / 10,
      kept, value: chosen,
      grid: Object.fromEntries([...runs].map(([v, o]) => [v, `A ${score(o, 0).objective.toFixed(1)} / B ${score(o, 1).objective.toFixed(1)} / oosHigh ${score(o).oosHighN}`])),
    };
    console.log(JSON.stringify(row));
    table.push({ ...row, grid: undefined });
  }
}
const final = score(await outcomes());
console.log(JSON.stringify({ bench: 'rag-tune', loadavg1m: +loadavg()[0]!.toFixed(1), questions: items.length, baseline: round1(baseline), final: round1(final), ranking, extractive }));
console.table(table);
