/**
 * Quality of the offline corrections on the labelled evaluation set (test/corrections/eval/):
 * precision and recall per code and overall, false alarms on the native controls, Spearman
 * between the global score and the error density, and the native-vs-densest score gap.
 *
 *   npx tsx bench/corrections-eval.ts tuning          # second round's tuning set (tune + the spent heldout)
 *   npx tsx bench/corrections-eval.ts fresh           # second round's held-out part, run once, at the end
 *   npx tsx bench/corrections-eval.ts final           # third round's held-out part (A2–C1), run once, at the end
 *   npx tsx bench/corrections-eval.ts tune|heldout    # the first round's parts
 *   --verbose lists every miss, false alarm and score; GRAMMALECTE=off for the built-in detectors alone
 */
import { cacheDir } from '../actors/corrections/cache.js';
import { Checker } from '../actors/corrections/checker.js';
import { locateGrammalecte } from '../actors/corrections/grammalecte/locate.js';
import { GrammalecteSidecar } from '../actors/corrections/grammalecte/sidecar.js';
import { EVAL_PARTS, evaluate, loadEval } from '../test/corrections/eval/evaluate.js';

const arg = process.argv[2] ?? 'tuning';
const part = EVAL_PARTS.find((p) => p === arg);
if (!part) throw new Error(`usage: corrections-eval.ts ${EVAL_PARTS.join('|')} [--verbose]`);
const verbose = process.argv.includes('--verbose');

const items = loadEval(part);
const cfg = process.env.GRAMMALECTE === 'off' ? { missing: 'GRAMMALECTE=off' } : locateGrammalecte(process.env.GRAMMALECTE_PATH, cacheDir());
let sidecar: GrammalecteSidecar | undefined;
if ('path' in cfg) {
  sidecar = new GrammalecteSidecar({ python: process.env.GRAMMALECTE_PYTHON ?? 'python3', pythonPath: cfg.path, timeoutMs: 10_000 });
  await sidecar.start();
}
const checker = new Checker(sidecar, 'missing' in cfg ? cfg.missing : undefined);
console.log(`part: ${part} (${items.length} productions, ${items.filter((i) => i.natif).length} native controls); engine: ${checker.status().engine}${sidecar ? ` ${sidecar.version}` : ''}`);
const r = await evaluate(items, checker, { verbose });
await sidecar?.stop();

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(0)} %` : '—');
console.log('\n| code | TP | FP | FN | precision | recall |\n| --- | --- | --- | --- | --- | --- |');
for (const [c, s] of [...r.perCode.entries()].sort((a, b) => (b[1].tp + b[1].fn) - (a[1].tp + a[1].fn))) {
  console.log(`| ${c} | ${s.tp} | ${s.fp} | ${s.fn} | ${pct(s.tp / (s.tp + s.fp))} | ${pct(s.tp / (s.tp + s.fn))} |`);
}
const { strict: S, family: F } = r;
console.log(`| **overall (strict code)** | ${S.tp} | ${S.fp} | ${S.fn} | ${pct(S.tp / (S.tp + S.fp))} | ${pct(S.tp / (S.tp + S.fn))} |`);
console.log(`| overall (agreement family) | ${F.tp} | ${F.fp} | ${F.fn} | ${pct(F.tp / (F.tp + F.fp))} | ${pct(F.tp / (F.tp + F.fn))} |`);
console.log(`\nfalse alarms on native controls: ${r.nativeFalseAlarms} on ${r.natives} texts (${((r.nativeFalseAlarms / r.natives) * 5).toFixed(1)} per 5 texts)`);
console.log(`Spearman(global score, error density): ${r.spearman.toFixed(3)} (target ≤ −0.75)`);
console.log(`native controls mean ${r.nativeMean.toFixed(2)} vs densest quarter of learner texts mean ${r.densestMean.toFixed(2)}: gap ${r.gap.toFixed(2)} points /20 (target ≥ 3)`);
if (verbose) for (const row of r.rows) console.log(`  ${row.id} density ${row.density.toFixed(1)} score ${row.score}`);
