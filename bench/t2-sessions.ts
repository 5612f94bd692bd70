/**
 * 200 concurrent T2 sessions streaming at real-time rate against the Gemini Live fake:
 * palabre's event-loop lag (target p99 < 20 ms) and RSS per session. The fake and the 200
 * clients run in a child process (bench/t2-sessions-load.ts), so this process's event loop and
 * memory are the server's alone.
 *
 *   node --expose-gc --import tsx bench/t2-sessions.ts [sessions=200] [seconds=20] [--inspect]
 * (`npx tsx bench/t2-sessions.ts` works too, without the retained-memory figure).
 *   … --baseline   the same load against bench/support/t2BaselineProxy.ts (the irreducible relay)
 *   … --stagger S  the sessions start streaming spread over the first S seconds (default 0: all on
 *                  the same 20 ms tick, so all their Gemini replies arrive together every 3 s)
 *   … --no-gc-tuning  palabre without `palabre serve`'s GC settings (core/tuning/gcFlagsForServe.ts)
 *   … --warmup W   the sessions stream W seconds before the measured `seconds` start (default 0):
 *                  CPU, lag and latencies are then those of a warmed process (V8 optimizes the
 *                  hot code on its helper threads in the first seconds — about 5 µs per chunk
 *                  of palabre's in a 12 s run, ≈ 1.4 µs of the relay's: bench/README.md, T2)
 * bench/t2-ratio.ts runs both interleaved and prints palabre/baseline ratios.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { forkLoad, type LoadMsg as Msg } from './support/loadChild.js';
import { startT2 } from '../test/t2/support.js';
import { startBaselineProxy } from './support/t2BaselineProxy.js';
import { threadCpuPer, threadTicks } from './support/threadCpu.js';
import { tuneGcForServe } from '../core/tuning/gcFlagsForServe.js';
import { applyTuningOff } from '../core/tuning/switches.js';

const staggerAt = process.argv.indexOf('--stagger');
const STAGGER_S = staggerAt > 0 ? Number(process.argv[staggerAt + 1]) : 0;
if (!Number.isFinite(STAGGER_S) || STAGGER_S < 0) throw new Error('--stagger takes a number of seconds ≥ 0');
const warmupAt = process.argv.indexOf('--warmup');
const WARMUP_S = warmupAt > 0 ? Number(process.argv[warmupAt + 1]) : 0;
if (!Number.isFinite(WARMUP_S) || WARMUP_S < 0) throw new Error('--warmup takes a number of seconds ≥ 0');
const args = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--stagger' && all[i - 1] !== '--warmup');
const SESSIONS = Number(args[0] ?? 200);
const SECONDS = Number(args[1] ?? 20);
/** `--inspect`: with an /inspect page open (the hub inspects only while a page listens). */
const INSPECT = process.argv.includes('--inspect');
const BASELINE = process.argv.includes('--baseline');
// palabre as `palabre serve` runs it (the relay keeps Node's defaults: it is the reference);
// TUNING_OFF in the environment turns pieces of the runtime tuning off, as it does for serve.
applyTuningOff(process.env.TUNING_OFF ?? 'none');
const GC_TUNED = !BASELINE && !process.argv.includes('--no-gc-tuning') ? tuneGcForServe() : [];

const { child, next } = forkLoad(new URL('./t2-sessions-load.ts', import.meta.url));

const { baseUrl } = (await next('fake')) as Msg & { baseUrl: string };
// palabre's data folder is this bench's, so the recordings can be counted after the stop.
const dataDir = mkdtempSync(join(tmpdir(), 'palabre-t2bench-'));
const env = BASELINE ? await baselineEnv(baseUrl) : await startT2({ dir: dataDir, geminiBaseUrl: baseUrl, env: { T2_MAX_SESSIONS: String(SESSIONS + 10), T2_IDLE_TIMEOUT_MS: '120000' } });
/** The baseline relay behind the same face as startT2's (tokens are ignored: it has no auth). */
async function baselineEnv(geminiBaseUrl: string) {
  const proxy = await startBaselineProxy(geminiBaseUrl);
  return { wsUrl: proxy.wsUrl, mint: async (_tier: string, id: string) => id, close: () => proxy.close(), ctx: { runtime: { countByKind: (): Record<string, number> => ({}) } } };
}
if (INSPECT && !BASELINE) {
  const { InspectorHub } = await import('../actors/statecharts/inspectorHub.js');
  // One listener stands for an open /inspect page: the hub then records every event.
  new InspectorHub((env as Awaited<ReturnType<typeof startT2>>).ctx.runtime).subscribe(() => undefined);
}
const tokens = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => env.mint('premium', `bench-${i}`)));
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const rssBefore = process.memoryUsage().rss;
const retainedBefore = process.memoryUsage().heapUsed + process.memoryUsage().external;
child.send({ type: 'go', wsUrl: env.wsUrl, tokens, durationMs: SECONDS * 1000, staggerMs: STAGGER_S * 1000, warmupMs: WARMUP_S * 1000 });
const streaming = (await next('streaming')) as Msg & { ready: number };
if (WARMUP_S > 0) await next('measuring');
const lag = monitorEventLoopDelay({ resolution: 5 });
lag.enable();
const cpu0 = process.cpuUsage();
const threads0 = threadTicks();
const elu0 = performance.eventLoopUtilization();
let rssPeak = 0;
const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 250);
// The measured window ends with the streaming (the load generator says so, then waits for
// `probed` before its clients leave): the full GC of the retained-memory probe falls outside it.
// (Inside the window, its 40 ms pause — palabre's heap is
// larger than the relay's — held every chunk of one tick: 200 of the ~1,500 chunks above the p99.)
await next('window-end');
lag.disable();
const cpu = process.cpuUsage(cpu0);
const threads = threadTicks();
const elu = performance.eventLoopUtilization(elu0);
clearInterval(sampler);
// Retained memory per live session: after a full GC, the sessions still open, their last chunks
// in (the generator's last tick was 200 ms ago).
let retainedPerSessionKB: number | null = null;
await new Promise((r) => setTimeout(r, 200));
if (gc) {
  gc();
  const m = process.memoryUsage();
  retainedPerSessionKB = Math.round((m.heapUsed + m.external - retainedBefore) / SESSIONS / 1024);
}
child.send({ type: 'probed' });
const done = (await next('done')) as Msg & { sent: number; sentTotal: number; bytesDown: number; finals: number; closedBeforeEnd: number; cpuUs: number; latency: Record<string, number> };
const live = env.ctx.runtime.countByKind().t2live ?? 0;
// The stop ends every session (the clients left: each waits for its reconnect grace, then the
// drain ends it) and finishes its recording: that CPU is counted apart, per chunk streamed.
const endCpu0 = process.cpuUsage();
const endT0 = performance.now();
await env.close();
const endCpu = process.cpuUsage(endCpu0);
const endMs = Math.round(performance.now() - endT0);
const recordings = countRecordings(join(dataDir, 't2-audio'));
rmSync(dataDir, { recursive: true, force: true });
/** WAVs with audio in them, and anything else left in the recordings folder (journals). */
function countRecordings(dir: string): { wavs: number; wavMB: number; otherFiles: number } {
  let wavs = 0;
  let bytes = 0;
  let otherFiles = 0;
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    const size = statSync(join(dir, name)).size;
    if (name.endsWith('.wav') && size > 44) {
      wavs++;
      bytes += size;
    } else otherFiles++;
  }
  return { wavs, wavMB: Math.round(bytes / 1e5) / 10, otherFiles };
}

const ms = (ns: number) => Math.round(ns / 1e4) / 100;
const result = {
  bench: BASELINE ? 't2-sessions-baseline' : 't2-sessions',
  sessions: SESSIONS,
  ready: streaming.ready,
  seconds: SECONDS,
  chunksUp: done.sent,
  // A stagger longer than the warm-up leaves its unstarted sessions' chunks out of the window.
  expectedChunksUp: SESSIONS * SECONDS * 50 - Math.round((SESSIONS - 1) / 2 * Math.max(0, STAGGER_S - WARMUP_S) ** 2 / Math.max(STAGGER_S, 1e-9) * 50),
  staggerS: STAGGER_S,
  warmupS: WARMUP_S,
  gcTuned: GC_TUNED,
  audioDownMB: Math.round(done.bytesDown / 1e5) / 10,
  interlocutorReplies: done.finals,
  closedBeforeEnd: done.closedBeforeEnd,
  liveActorsAtEnd: live,
  chunkLatency: done.latency,
  eventLoopLagMs: { p50: ms(lag.percentile(50)), p99: ms(lag.percentile(99)), max: ms(lag.max) },
  rssMB: { before: Math.round(rssBefore / 1e6), peak: Math.round(rssPeak / 1e6) },
  rssPerSessionKB: Math.round((rssPeak - rssBefore) / SESSIONS / 1024),
  retainedPerSessionKB,
  // Machine-independent capacity: server CPU time per candidate chunk (all the work that chunk
  // and its share of replies, recording and grading cause), and the sessions one core carries.
  serverCpuPerChunkUs: Math.round((cpu.user + cpu.system) / Math.max(1, done.sent)),
  // The same CPU by thread (Linux; 10 ms ticks): the event loop, then the others busiest first —
  // palabre's recording thread, V8's helper threads (concurrent marking and sweeping), libuv's pool.
  threadCpuPerChunkUs: threadCpuPer(threads0, threads, done.sent),
  // After the streaming: the stop (sessions ended, graded, saved, recordings finished), process
  // CPU per chunk streamed, its wall time, and the recordings it left.
  // (per chunk of the whole streaming, warm-up included: the recordings hold all of it)
  stopCpuPerChunkUs: Math.round((endCpu.user + endCpu.system) / Math.max(1, done.sentTotal) * 10) / 10,
  stopMs: endMs,
  recordings,
  // The main thread alone (process CPU above includes the recording thread): the share of time
  // its event loop was busy, and that busy time per candidate chunk.
  mainLoopUtilization: Math.round(elu.utilization * 1000) / 1000,
  mainLoopBusyPerChunkUs: Math.round((elu.active * 1000) / Math.max(1, done.sent)),
  inspect: INSPECT,
  // The load generator (200 clients + the Gemini fake, another process on the same cores).
  generatorCpuPerChunkUs: Math.round(done.cpuUs / Math.max(1, done.sent)),
  generatorCoresBusy: Math.round(done.cpuUs / (SECONDS * 1e6) * 100) / 100,
  sessionsPerCoreAtRealTime: Math.floor(1e6 / 50 / Math.max(1, (cpu.user + cpu.system) / Math.max(1, done.sent))),
  targetLagP99Ms: 20,
  pass: !BASELINE && ms(lag.percentile(99)) < 20 && streaming.ready === SESSIONS,
  loadavg1m: loadavg()[0] ?? 0,
};
console.log(JSON.stringify(result));
console.table([{ sessions: result.ready, 'lag p50 ms': result.eventLoopLagMs.p50, 'lag p99 ms': result.eventLoopLagMs.p99, 'lag max ms': result.eventLoopLagMs.max, 'peak RSS/session KB': result.rssPerSessionKB, 'retained/session KB': result.retainedPerSessionKB, 'chunks up': result.chunksUp, 'CPU µs/chunk': result.serverCpuPerChunkUs, 'loop busy µs/chunk': result.mainLoopBusyPerChunkUs, 'sessions/core': result.sessionsPerCoreAtRealTime, replies: result.interlocutorReplies, pass: result.pass }]);
child.kill();
