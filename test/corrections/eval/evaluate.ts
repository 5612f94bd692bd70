import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { assembleReport } from '../../../actors/corrections/assemble.js';
import type { Checker } from '../../../actors/corrections/checker.js';
import type { Finding } from '../../../actors/corrections/detectors/context.js';
import { countWords } from '../../../actors/corrections/production.js';
import { type Production } from '../../../prompts/corrections/tasks.js';
import { CODE_CRITERE } from '../../../prompts/taxonomy.js';

/**
 * Scores the offline checker on a part of the labelled evaluation set (README.md here: the rules
 * were fixed before the first run). Used by bench/corrections-eval.ts and by the regression floors
 * of test/corrections/grammalecte.test.ts (tune part only).
 */

const itemSchema = z.object({
  id: z.string(), niveau: z.string(), l1: z.string(), natif: z.boolean(),
  tache: z.enum(['EE_T1', 'EE_T2', 'EE_T3']), consigne: z.string(), texte: z.string(), globals: z.array(z.string()),
});
const MARK = /\[\[([^|\]]+)\|([a-z_]+)\]\]/g;

interface Label { code: string; start: number; end: number; quote: string }
export interface Item { id: string; natif: boolean; production: Production; labels: Label[]; words: number }

export type EvalPart = 'tune' | 'heldout' | 'fresh' | 'final' | 'tuning';
export const EVAL_PARTS: readonly EvalPart[] = ['tune', 'heldout', 'fresh', 'final', 'tuning'];

/**
 * One part of the set. `tuning` is the second round's tuning set: the first round's tune and
 * (spent) held-out parts together; `fresh` is the second round's held-out part; `final` the third
 * round's, run once at the end (README.md).
 */
export function loadEval(part: EvalPart): Item[] {
  if (part === 'tuning') return [...loadEval('tune'), ...loadEval('heldout')];
  const raw = z.array(itemSchema).parse(JSON.parse(readFileSync(new URL(`./${part}.json`, import.meta.url), 'utf8')));
  return raw.map((x) => {
    let text = '';
    let last = 0;
    const labels: Label[] = [];
    for (const m of x.texte.matchAll(MARK)) {
      text += x.texte.slice(last, m.index);
      labels.push({ code: m[2]!, start: text.length, end: text.length + m[1]!.length, quote: m[1]! });
      text += m[1]!;
      last = m.index + m[0].length;
    }
    text += x.texte.slice(last);
    for (const g of x.globals) labels.push({ code: g, start: 0, end: text.length, quote: '' });
    return { id: x.id, natif: x.natif, production: { epreuve: 'EE', tache: x.tache, consigne: x.consigne, texte: text }, labels, words: countWords(text) };
  });
}

const FAMILY: Record<string, string> = Object.fromEntries(['accord_sujet_verbe', 'accord_adjectif_nom', 'accord_participe_passe', 'accord_determinant_nom', 'genre_incorrect', 'nombre_incorrect'].map((c) => [c, 'accord']));
const critOf = (code: string, f?: Finding) => (code === 'autre' ? (f?.critere ?? 'competence_grammaticale') : CODE_CRITERE.get(code));

function match(findings: Finding[], labels: Label[], family: boolean) {
  const used = new Set<Finding>();
  const hits: Label[] = [];
  const misses: Label[] = [];
  for (const l of labels) {
    const ok = (f: Finding) => {
      const codeOk = f.code === l.code
        ? (l.code !== 'autre' || critOf('autre', f) === 'competence_grammaticale')
        : family && FAMILY[f.code] !== undefined && FAMILY[f.code] === FAMILY[l.code];
      return codeOk && f.start < l.end && f.start + f.extrait.length > l.start;
    };
    const f = findings.find((x) => !used.has(x) && ok(x));
    if (f) { used.add(f); hits.push(l); } else misses.push(l);
  }
  return { hits, misses, extras: findings.filter((f) => !used.has(f)) };
}

function ranks(xs: number[]): number[] {
  const idx = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const r = new Array<number>(xs.length);
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1]![0] === idx[i]![0]) j++;
    for (let k = i; k <= j; k++) r[idx[k]![1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}
export function spearman(a: number[], b: number[]): number {
  const ra = ranks(a); const rb = ranks(b);
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  const ma = mean(ra); const mb = mean(rb);
  let num = 0; let da = 0; let db = 0;
  for (let i = 0; i < ra.length; i++) { num += (ra[i]! - ma) * (rb[i]! - mb); da += (ra[i]! - ma) ** 2; db += (rb[i]! - mb) ** 2; }
  return num / Math.sqrt(da * db);
}

export interface EvalResult {
  perCode: Map<string, { tp: number; fp: number; fn: number }>;
  strict: { tp: number; fp: number; fn: number };
  family: { tp: number; fp: number; fn: number };
  nativeFalseAlarms: number;
  natives: number;
  rows: Array<{ id: string; natif: boolean; density: number; score: number }>;
  spearman: number;
  gap: number;
  nativeMean: number;
  densestMean: number;
}

export async function evaluate(items: Item[], checker: Checker, opts: { verbose?: boolean; log?: (line: string) => void } = {}): Promise<EvalResult> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const perCode = new Map<string, { tp: number; fp: number; fn: number }>();
  const get = (c: string) => perCode.get(c) ?? perCode.set(c, { tp: 0, fp: 0, fn: 0 }).get(c)!;
  let TP = 0; let FP = 0; let FN = 0; let famTP = 0; let famFP = 0; let nativeFA = 0;
  const rows: Array<{ id: string; natif: boolean; density: number; score: number }> = [];
  for (const it of items) {
    const { findings } = await checker.check(it.production);
    const strict = match(findings, it.labels, false);
    const fam = match(findings, it.labels, true);
    for (const l of strict.hits) get(l.code).tp++;
    for (const l of strict.misses) get(l.code).fn++;
    for (const f of strict.extras) get(f.code).fp++;
    TP += strict.hits.length; FN += strict.misses.length; FP += strict.extras.length;
    famTP += fam.hits.length; famFP += fam.extras.length;
    if (it.natif) nativeFA += findings.length;
    const report = assembleReport({ production: it.production, findings, fallback: { reason: 'offline_provider' } });
    rows.push({ id: it.id, natif: it.natif, density: (100 * it.labels.length) / it.words, score: report.scoreGlobal });
    if (opts.verbose) {
      for (const l of strict.misses) log(`  ${it.id} MISS ${l.code} «${l.quote}»`);
      for (const f of strict.extras) log(`  ${it.id} ${it.natif ? 'NATIVE-FA' : 'FA'} ${f.code} «${f.extrait}» (${f.detecteur})`);
    }
  }
  const natives = rows.filter((r) => r.natif);
  const learners = rows.filter((r) => !r.natif).sort((a, b) => b.density - a.density);
  const densest = learners.slice(0, Math.max(1, Math.round(learners.length / 4)));
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  const nativeMean = mean(natives.map((r) => r.score));
  const densestMean = mean(densest.map((r) => r.score));
  return {
    perCode, strict: { tp: TP, fp: FP, fn: FN }, family: { tp: famTP, fp: famFP, fn: TP + FN - famTP }, nativeFalseAlarms: nativeFA, natives: natives.length, rows,
    spearman: spearman(rows.map((r) => r.score), rows.map((r) => r.density)), gap: nativeMean - densestMean, nativeMean, densestMean,
  };
}
