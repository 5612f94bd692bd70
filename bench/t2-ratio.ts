/**
 * palabre's T2 proxy against the irreducible relay (bench/support/t2BaselineProxy.ts), as a same-run ratio:
 * the same load generator (bench/t2-sessions-load.ts), runs interleaved baseline, palabre,
 * baseline, palabre… each in a fresh process, and the ratio of the medians. The machine is shared,
 * so the ratios, measured in one run, are the figures; the load average is printed with each run.
 *
 *   npx tsx bench/t2-ratio.ts [sessions=200] [seconds=15] [rounds=3] [--stagger S] [--warmup W] [--no-gc-tuning]
 *
 * `--stagger S`: the sessions start streaming spread over the first S seconds (both sides alike),
 * instead of all on the same tick; `--no-gc-tuning`: palabre without `palabre serve`'s GC settings
 * (core/tuning/gcFlagsForServe.ts); `--warmup W`: both sides stream W seconds before the measured seconds (V8's
 * optimizing compiler has then done most of its work, on either side). All are passed to
 * bench/t2-sessions.ts.
 *
 * Targets: event-loop lag p99 ≤ 2×, server CPU per chunk ≤ 1.5×, chunk latency p99 ≤ 1.5×. The CPU
 * of the stop that follows (`cpuWithStopPerChunkUs`: palabre assembles its recordings then) is
 * printed too, without a target.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const staggerAt = argv.indexOf('--stagger');
const STAGGER = staggerAt >= 0 ? ['--stagger', String(Number(argv[staggerAt + 1]))] : [];
const warmupAt = argv.indexOf('--warmup');
const WARMUP = warmupAt >= 0 ? ['--warmup', String(Number(argv[warmupAt + 1]))] : [];
const NO_GC_TUNING = argv.includes('--no-gc-tuning') ? ['--no-gc-tuning'] : [];
const [SESSIONS = '200', SECONDS = '15', ROUNDS = '3'] = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--stagger' && argv[i - 1] !== '--warmup');
const script = fileURLToPath(new URL('./t2-sessions.ts', import.meta.url));

interface Run {
  bench: string;
  ready: number;
  chunksUp: number;
  eventLoopLagMs: { p99: number };
  serverCpuPerChunkUs: number;
  /** The stop after the streaming (sessions ended, graded, saved, recordings assembled), per chunk streamed. */
  stopCpuPerChunkUs: number;
  threadCpuPerChunkUs: { main: number; others: number[] };
  chunkLatency: { upP99Ms: number; downP99Ms: number; upP50Ms: number; downP50Ms: number };
  loadavg1m: number;
}

function run(baseline: boolean): Run {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', script, SESSIONS, SECONDS, ...STAGGER, ...WARMUP, ...(baseline ? ['--baseline'] : NO_GC_TUNING)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
  const line = out.split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`no result line from ${baseline ? 'baseline' : 'palabre'}:\n${out}`);
  return JSON.parse(line) as Run;
}

const runs: { palabre: Run[]; baseline: Run[] } = { palabre: [], baseline: [] };
for (let i = 0; i < Number(ROUNDS); i++) {
  for (const which of ['baseline', 'palabre'] as const) {
    const r = run(which === 'baseline');
    runs[which].push(r);
    process.stderr.write(`${which} #${i + 1}: ready ${r.ready}, lag p99 ${r.eventLoopLagMs.p99} ms, CPU ${r.serverCpuPerChunkUs} µs/chunk (threads ${r.threadCpuPerChunkUs.main} + ${r.threadCpuPerChunkUs.others.join(' + ')}), latency p99 up ${r.chunkLatency.upP99Ms} / down ${r.chunkLatency.downP99Ms} ms, stop ${r.stopCpuPerChunkUs} µs/chunk, load ${r.loadavg1m.toFixed(2)}\n`);
  }
}
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const metrics = {
  lagP99Ms: (r: Run) => r.eventLoopLagMs.p99,
  cpuPerChunkUs: (r: Run) => r.serverCpuPerChunkUs,
  // Not a target: the CPU the streaming left for the stop (palabre's recordings are assembled
  // then), added to the streaming's — the whole cost per chunk.
  cpuWithStopPerChunkUs: (r: Run) => r.serverCpuPerChunkUs + r.stopCpuPerChunkUs,
  upLatencyP99Ms: (r: Run) => r.chunkLatency.upP99Ms,
  downLatencyP99Ms: (r: Run) => r.chunkLatency.downP99Ms,
  upLatencyP50Ms: (r: Run) => r.chunkLatency.upP50Ms,
  downLatencyP50Ms: (r: Run) => r.chunkLatency.downP50Ms,
};
const targets: Record<string, number> = { lagP99Ms: 2, cpuPerChunkUs: 1.5, upLatencyP99Ms: 1.5, downLatencyP99Ms: 1.5 };
const rows = Object.entries(metrics).map(([name, f]) => {
  const p = median(runs.palabre.map(f));
  const b = median(runs.baseline.map(f));
  const ratio = Math.round((p / b) * 100) / 100;
  return { metric: name, palabre: p, baseline: b, ratio, target: targets[name] ?? null, met: targets[name] === undefined ? null : ratio <= targets[name]! };
});
const loads = [...runs.palabre, ...runs.baseline].map((r) => r.loadavg1m);
console.log(JSON.stringify({ bench: 't2-ratio', sessions: Number(SESSIONS), seconds: Number(SECONDS), rounds: Number(ROUNDS), staggerS: STAGGER.length ? Number(STAGGER[1]) : 0, warmupS: WARMUP.length ? Number(WARMUP[1]) : 0, gcTuning: NO_GC_TUNING.length === 0, readyPalabre: runs.palabre.map((r) => r.ready), readyBaseline: runs.baseline.map((r) => r.ready), loadavg1m: { min: Math.min(...loads), max: Math.max(...loads), atEnd: loadavg()[0] }, rows }));
console.table(rows);
