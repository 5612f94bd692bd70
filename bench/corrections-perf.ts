/**
 * Corrections benchmarks:
 *  1. the deterministic detectors' time per 1,000 words (target ≤ 5 ms), on the labelled set's
 *     written productions concatenated into texts of ~1,000 words (word list already loaded);
 *  2. the whole offline correction of a 250-word EE_T3 text (target p50 < 100 ms warm): correction
 *     actor in the runtime, prompt, detectors + Grammalecte (when installed), report, SQLite save;
 *     and the CPU time of node and of the sidecar per correction (the load-independent cost);
 *  3. memory: this process's peak RSS and the Grammalecte sidecar's (VmHWM), and its start time.
 *
 *   npx tsx bench/corrections-perf.ts [rounds=200]
 *
 * Prints one JSON line, then a table.
 */
import os from 'node:os';
import { readFileSync } from 'node:fs';
import { DETECTORS, runDetectors } from '../actors/corrections/detectors/allDetectors.js';
import { countWords } from '../actors/corrections/production.js';
import { type Production } from '../prompts/corrections/tasks.js';
import { createCorrectionService } from '../actors/corrections/service.js';
import { buildContext } from '../actors/corrections/detectors/context.js';
import { loadLabelled } from '../test/corrections/labelled.js';
import { makeContext } from '../test/corrections/support.js';

const ROUNDS = Math.max(20, Number(process.argv[2] ?? 200));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 20);

// 1. Detectors per 1,000 words.
const written = loadLabelled().filter((l) => l.production.epreuve === 'EE').map((l) => (l.production as Extract<Production, { epreuve: 'EE' }>).texte);
const big = written.join('\n\n');
const bigWords = countWords(big);
const thousand: Production = { epreuve: 'EE', tache: 'EE_T3', consigne: 'Donnez votre opinion.', texte: big };
for (let i = 0; i < 5; i++) runDetectors(thousand);
const perK: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const t0 = performance.now();
  runDetectors(thousand);
  perK.push(((performance.now() - t0) / bigWords) * 1000);
}
// Per detector, to see where the time goes.
const ctxRuns: number[] = [];
for (let i = 0; i < 50; i++) {
  const t0 = performance.now();
  buildContext(thousand);
  ctxRuns.push(((performance.now() - t0) / bigWords) * 1000);
}
const ctx = buildContext(thousand);
const perDetector = DETECTORS.map((d) => {
  for (let i = 0; i < 10; i++) d.detect(ctx);
  const runs: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    d.detect(ctx);
    runs.push(((performance.now() - t0) / bigWords) * 1000);
  }
  return { detector: d.name, msPer1000Words: pct(runs, 50) };
}).sort((a, b) => b.msPer1000Words - a.msPer1000Words);

// 2. Whole offline correction of a 250-word text.
const words250 = big.match(/\S+/g)!.slice(0, 250).join(' ');
const env = makeContext({ GRAMMALECTE: process.env.GRAMMALECTE ?? 'auto' });
const service = createCorrectionService(env.ctx);
const tStart = performance.now();
await service.startChecker();
const checkerStartMs = performance.now() - tStart;
const engine = service.checker.status();
const whole: number[] = [];
// CPU time spent by both processes (node: process.cpuUsage; sidecar: utime + stime of /proc/PID/stat,
// in clock ticks of 10 ms): on a shared machine the wall time measures the queue for the CPU, the
// CPU time what one correction costs — on an idle machine the two are the same (one request at a time).
const sidecarTicks = () => {
  const p = service.checkerPid();
  if (!p) return 0;
  const f = readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return Number(f[11]) + Number(f[12]);
};
let cpu0 = process.cpuUsage();
let ticks0 = sidecarTicks();
const measured = Math.min(ROUNDS, 100);
for (let i = 0; i < measured + 5; i++) {
  if (i === 5) { cpu0 = process.cpuUsage(); ticks0 = sidecarTicks(); }
  const t0 = performance.now();
  const out = await service.correctWritten({ candidateId: `bench-${i % 7}`, tache: 'EE_T3', consigne: 'Donnez votre opinion.', texte: words250 });
  if (!out.report.detectorsOnly) throw new Error('expected the offline provider');
  if (i >= 5) whole.push(performance.now() - t0);
}
const nodeCpu = process.cpuUsage(cpu0);
const cpuPerCorrection = { node: (nodeCpu.user + nodeCpu.system) / 1000 / measured, sidecar: ((sidecarTicks() - ticks0) * 10) / measured };
const pid = service.checkerPid();
const sidecarPeakKB = pid ? Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) : 0;
await service.close();
env.close();
clearInterval(sampler);

const result = {
  bench: 'corrections',
  node: process.version,
  cpus: os.cpus().length,
  detectorsPer1000WordsMs: { p50: +pct(perK, 50).toFixed(3), p95: +pct(perK, 95).toFixed(3), words: bigWords, target: 5 },
  offlineCorrection250WordsMs: { p50: +pct(whole, 50).toFixed(2), p95: +pct(whole, 95).toFixed(2), words: countWords(words250) },
  cpuPerCorrectionMs: { node: +cpuPerCorrection.node.toFixed(1), sidecar: +cpuPerCorrection.sidecar.toFixed(1), total: +(cpuPerCorrection.node + cpuPerCorrection.sidecar).toFixed(1) },
  loadAverage: +os.loadavg()[0]!.toFixed(1),
  engine: engine.engine, engineVersion: engine.version ?? null, checkerStartMs: Math.round(checkerStartMs),
  peakRssMB: { node: Math.round(peakRss / 1e6), grammalecte: Math.round(sidecarPeakKB / 1e3) },
};
console.log(JSON.stringify(result));
console.log('');
console.log('measure                                   p50        p95');
console.log(`detectors, ms per 1,000 words (≤ 5)    ${result.detectorsPer1000WordsMs.p50.toFixed(3).padStart(8)}  ${result.detectorsPer1000WordsMs.p95.toFixed(3).padStart(8)}`);
console.log(`offline correction, 250 words, ms      ${result.offlineCorrection250WordsMs.p50.toFixed(2).padStart(8)}  ${result.offlineCorrection250WordsMs.p95.toFixed(2).padStart(8)}`);
console.log(`CPU per correction, ms (node + sidecar)  ${result.cpuPerCorrectionMs.total.toFixed(1).padStart(8)}  (node ${result.cpuPerCorrectionMs.node}, sidecar ${result.cpuPerCorrectionMs.sidecar}: the time on an idle machine)`);
console.log(`engine: ${engine.engine} ${engine.version ?? ''} (ready in ${result.checkerStartMs} ms); peak RSS: node ${result.peakRssMB.node} MB, Grammalecte sidecar ${result.peakRssMB.grammalecte} MB`);
console.log(`  (load average at the end: ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs)`);
console.log('per step (ms per 1,000 words, p50 of 50 warmed runs):');
console.log(`  ${'tokenize + spans'.padEnd(20)} ${pct(ctxRuns, 50).toFixed(3)}`);
for (const d of perDetector) console.log(`  ${d.detector.padEnd(20)} ${d.msPer1000Words.toFixed(3)}`);
