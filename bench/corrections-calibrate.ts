/**
 * Calibration of the offline scores (actors/corrections/scoring.ts) on the labelled tuning data.
 *
 * Runs the offline checker (Grammalecte + detectors) once on every production of the tuning parts,
 * then re-scores the same findings with each candidate set of constants and prints, per candidate,
 * the Spearman correlation between the global score and the labelled error density and the gap
 * between native controls and the densest learner texts. Candidates are chosen by 2-fold
 * cross-validation (productions alternately in fold A and B): the best candidate on one fold is
 * scored on the other, so the figure printed for the choice is one it was not chosen on.
 *
 *   npx tsx bench/corrections-calibrate.ts              # tune + heldout + fresh (all three spent: tuning data)
 *   npx tsx bench/corrections-calibrate.ts --top 15     # more candidates in the table
 */
import { assembleReport } from '../actors/corrections/assemble.js';
import { cacheDir } from '../actors/corrections/cache.js';
import { Checker } from '../actors/corrections/checker.js';
import type { Finding } from '../actors/corrections/detectors/context.js';
import { locateGrammalecte } from '../actors/corrections/grammalecte/locate.js';
import { GrammalecteSidecar } from '../actors/corrections/grammalecte/sidecar.js';
import { GRAVITY, SCORING, SPILL, type ScoringParams } from '../actors/corrections/scoring.js';
import { loadEval, spearman, type EvalPart, type Item } from '../test/corrections/eval/evaluate.js';

const PARTS: EvalPart[] = ['tune', 'heldout', 'fresh'];
const topArg = process.argv.indexOf('--top');
const TOP = topArg > 0 ? Number(process.argv[topArg + 1]) : 10;

interface Row { part: EvalPart; item: Item; findings: Finding[]; density: number }

const cfg = locateGrammalecte(process.env.GRAMMALECTE_PATH, cacheDir());
if (!('path' in cfg)) throw new Error(`Grammalecte is needed for the calibration: ${cfg.missing} (npm run grammalecte:install)`);
const sidecar = new GrammalecteSidecar({ python: process.env.GRAMMALECTE_PYTHON ?? 'python3', pythonPath: cfg.path, timeoutMs: 10_000 });
await sidecar.start();
const checker = new Checker(sidecar, undefined);
const rows: Row[] = [];
for (const part of PARTS) {
  for (const item of loadEval(part)) {
    const { findings } = await checker.check(item.production);
    rows.push({ part, item, findings, density: (100 * item.labels.length) / item.words });
  }
}
await sidecar.stop();

function measure(p: ScoringParams, subset: Row[]) {
  const scores = subset.map((r) => assembleReport({ production: r.item.production, findings: r.findings, fallback: { reason: 'offline_provider' }, scoring: p }).scoreGlobal);
  const rho = spearman(scores, subset.map((r) => r.density));
  const natives = subset.flatMap((r, i) => (r.item.natif ? [scores[i]!] : []));
  const learners = subset.map((r, i) => ({ d: r.density, s: scores[i]! })).filter((_, i) => !subset[i]!.item.natif).sort((a, b) => b.d - a.d);
  const densest = learners.slice(0, Math.max(1, Math.round(learners.length / 4)));
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  return { rho, gap: mean(natives) - mean(densest.map((x) => x.s)), nativeMean: mean(natives), densestMean: mean(densest.map((x) => x.s)) };
}

// The candidates: the curve, its slope and floor, the spill-over, the gravities, the short-text floor.
const UNIFORM: Record<string, number> = Object.fromEntries(Object.keys(GRAVITY).map((k) => [k, k === 'longueur_insuffisante' ? 0 : 1]));
const SOFT: Record<string, number> = Object.fromEntries(Object.entries(GRAVITY).map(([k, v]) => [k, k === 'longueur_insuffisante' ? 0 : (1 + v) / 2]));
const spills: Array<[string, Record<string, number>]> = [
  ['spill 0.5/0.25', { ...SPILL }],
  ['spill 0', { coherence_cohesion: 0, adequation_tache: 0 }],
  ['spill 1/1', { coherence_cohesion: 1, adequation_tache: 1 }],
  ['spill 0.75/0.5', { coherence_cohesion: 0.75, adequation_tache: 0.5 }],
];
const gravities: Array<[string, Record<string, number>]> = [['gravity taxonomy', { ...GRAVITY }], ['gravity uniform', UNIFORM], ['gravity halfway', SOFT]];
const candidates: Array<{ name: string; p: ScoringParams }> = [{ name: 'shipped', p: SCORING }];
for (const curve of ['linear', 'exp'] as const) {
  for (const slope of [0.75, 1, 1.5, 2, 3]) {
    for (const floor of [0, 3]) {
      for (const [sn, spill] of spills) {
        for (const [gn, gravity] of gravities) {
          for (const minWords of [40, 60]) {
            candidates.push({ name: `${curve} slope ${slope} floor ${floor} ${sn} ${gn} min ${minWords}`, p: { ...SCORING, curve, slope, floor, spill, gravity, minWords } });
          }
        }
      }
    }
  }
}

// Candidates must keep native controls ≥ 3 points above the densest learner texts (a native text
// must never score like a weak learner's); among those, the most negative Spearman wins.
const foldA = rows.filter((_, i) => i % 2 === 0);
const foldB = rows.filter((_, i) => i % 2 === 1);
const scored = candidates.map((c) => ({ ...c, all: measure(c.p, rows), a: measure(c.p, foldA), b: measure(c.p, foldB) }));
const best = (k: 'a' | 'b') => scored.filter((c) => c[k].gap >= 3).sort((x, y) => x[k].rho - y[k].rho)[0]!;
const f = (x: number) => x.toFixed(3);

console.log(`productions: ${rows.length} (${PARTS.map((p) => `${p} ${rows.filter((r) => r.part === p).length}`).join(', ')}); candidates: ${candidates.length}`);
console.log('\n| candidate | ρ all | ρ fold A | ρ fold B | gap all | natives / densest |\n| --- | --- | --- | --- | --- | --- |');
const shipped = scored[0]!;
for (const c of [shipped, ...scored.slice(1).sort((x, y) => x.all.rho - y.all.rho).slice(0, TOP)]) {
  console.log(`| ${c.name} | ${f(c.all.rho)} | ${f(c.a.rho)} | ${f(c.b.rho)} | ${c.all.gap.toFixed(2)} | ${c.all.nativeMean.toFixed(1)} / ${c.all.densestMean.toFixed(1)} |`);
}
const bestA = best('a');
const bestB = best('b');
console.log('\nCross-validation (chosen on one fold, scored on the other; shipped constants for comparison):');
console.log(`  best on A: ${bestA.name} → ρ on B ${f(bestA.b.rho)} (shipped ${f(shipped.b.rho)})`);
console.log(`  best on B: ${bestB.name} → ρ on A ${f(bestB.a.rho)} (shipped ${f(shipped.a.rho)})`);
for (const part of PARTS) {
  const sub = rows.filter((r) => r.part === part);
  const s = measure(SCORING, sub);
  console.log(`  part ${part}: shipped ρ ${f(s.rho)}, gap ${s.gap.toFixed(2)}; best-on-A ρ ${f(measure(bestA.p, sub).rho)}; best-on-B ρ ${f(measure(bestB.p, sub).rho)}`);
}
// Ceiling: the detected density itself (unweighted findings per 100 words) against the labelled one.
const detected = rows.map((r) => (100 * r.findings.length) / r.item.words);
console.log(`\nceiling — Spearman(detected findings per 100 words, labelled density): ${f(spearman(detected.map((x) => -x), rows.map((r) => r.density)))} (all), ${PARTS.map((p) => `${p} ${f(spearman(detected.filter((_, i) => rows[i]!.part === p).map((x) => -x), rows.filter((r) => r.part === p).map((r) => r.density)))}`).join(', ')}`);
