/**
 * Resampler throughput: 16 kHz → 24 kHz (actors/t2/resampler.ts) in × real time, on 20 ms chunks
 * as the T2 session feeds it. Target: ≥ 500× (docs/t2-live.md § Benchmarks).
 *
 *   npx tsx bench/t2-resampler.ts
 */
import { Resampler16to24 } from '../actors/t2/resampler.js';

const SECONDS = 120;
const CHUNK = 320; // 20 ms at 16 kHz
const x = new Int16Array(16000 * SECONDS);
for (let i = 0; i < x.length; i++) x[i] = Math.round(Math.sin((2 * Math.PI * 440 * i) / 16000) * 8000 + Math.sin(i * 0.37) * 2000);

/** × real time by wall clock and by this process's CPU time (the machine may be shared). */
function run(): { wall: number; cpu: number } {
  const r = new Resampler16to24();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let n = 0;
  for (let i = 0; i < x.length; i += CHUNK) n += r.push(x.subarray(i, i + CHUNK)).length;
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (n !== 24000 * SECONDS) throw new Error(`produced ${n} samples`);
  return { wall: (SECONDS * 1000) / ms, cpu: (SECONDS * 1e6) / (c.user + c.system) };
}

run(); // JIT warm-up
const runs = Array.from({ length: 5 }, run);
const med = (xs: number[]): number => xs.sort((a, b) => a - b)[2]!;
const wall = med(runs.map((r) => r.wall));
const cpu = med(runs.map((r) => r.cpu));

/**
 * As the recording uses it (100 ms batches: five 20 ms chunks queued, one drain), with the
 * WebAssembly SIMD kernel and with the JavaScript loop (identical samples): CPU µs per 20 ms chunk.
 */
function batched(simd: boolean): number {
  const r = new Resampler16to24({ simd });
  const c0 = process.cpuUsage();
  for (let i = 0; i < x.length; i += CHUNK) {
    r.enqueue(x.subarray(i, i + CHUNK));
    if (r.pending >= 1600) r.drain();
  }
  r.drain();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / (x.length / CHUNK);
}
batched(true);
batched(false);
const simdUs: number[] = [];
const jsUs: number[] = [];
for (let i = 0; i < 5; i++) {
  simdUs.push(batched(true));
  jsUs.push(batched(false));
}
const { loadavg, cpus } = await import('node:os');
const result = { bench: 't2-resampler', audioSeconds: SECONDS, chunkMs: 20, xRealTimeWall: Math.round(wall), xRealTimeCpu: Math.round(cpu), target: 500, pass: cpu >= 500, batchedChunkUs: { simd: Math.round(med(simdUs) * 100) / 100, js: Math.round(med(jsUs) * 100) / 100 }, simd: new Resampler16to24().simd, loadavg1m: loadavg()[0] ?? 0, cores: cpus().length };
console.log(JSON.stringify(result));
console.table([{ '×RT (wall)': result.xRealTimeWall, '×RT (CPU time)': result.xRealTimeCpu, target: 500, pass: result.pass, 'load avg': result.loadavg1m.toFixed(1) }]);
