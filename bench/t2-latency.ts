/**
 * Added latency per audio chunk through the T2 proxy, both ways (target p99 ≤ 1 ms: docs/t2-live.md § Benchmarks).
 *
 * client ─ws─▶ palabre /t2/live ─SDK─▶ Gemini Live fake, and back. Each 20 ms chunk carries a
 * sequence number. The client and the fake run in a child process (bench/t2-latency-load.ts) that
 * takes send and arrival times on one clock, so this process runs palabre's proxy alone. The same
 * chunks also go client ─ws─▶ fake directly (the socket hop alone, JSON+base64 as the SDK sends);
 * the proxy's added latency is proxied − direct, per percentile. Then, in this process, the
 * proxy's own work per candidate chunk (the audio pipe: SDK send, then the recording).
 *
 *   npx tsx bench/t2-latency.ts [chunks=500]
 */
import { loadavg } from 'node:os';
import { forkLoad, type LoadMsg as Msg } from './support/loadChild.js';
import { startT2 } from '../test/t2/support.js';

const CHUNKS = Number(process.argv[2] ?? 500);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const { child, next } = forkLoad(new URL('./t2-latency-load.ts', import.meta.url));

const { baseUrl } = (await next('fake')) as Msg & { baseUrl: string };
const env = await startT2({ geminiBaseUrl: baseUrl });
child.send({ type: 'go', wsUrl: env.wsUrl, token: await env.mint('premium', 'bench'), chunks: CHUNKS });
const done = (await next('done')) as Msg & Record<'proxiedUp' | 'proxiedDown' | 'directUp' | 'directDown', number[]>;

// The proxy's own work per candidate chunk, on the production path: a session wired as the
// surface wires it (actors/t2/t2Wiring.ts, Gemini interlocutor on the fake), in `live`; each chunk
// goes into its audio pipe as the transport routes a validated binary frame → SDK send →
// recording (copied for the recording thread, as the surface wires it; the thread's own work is
// not on this thread). Timed in wall and CPU time (CPU time ignores being descheduled). The
// transport's frame checks and the WebSocket parsing are not included.
const { GoogleGenAI } = await import('@google/genai');
const { wireT2Session } = await import('../actors/t2/t2Wiring.js');
const { geminiInterlocutor } = await import('../actors/t2/geminiInterlocutor.js');
const { SubjectStore } = await import('../actors/t2/subjects.js');
const { SessionStore } = await import('../actors/t2/sessionStore.js');
const { buildSystemPrompt } = await import('../prompts/t2/interlocutorPrompt.js');
const { RecordingThread } = await import('../actors/t2/recordingThread.js');
const recordings = new RecordingThread();
const { join } = await import('node:path');
const { tmpdir } = await import('node:os');
const ai = new GoogleGenAI({ apiKey: 'fake-key', httpOptions: { baseUrl, apiVersion: 'v1beta' } });
const { storeOf } = await import('../core/store/appStore.js');
const subjects = new SubjectStore(storeOf(env.ctx));
const wired = wireT2Session(
  {
    logger: env.ctx.logger,
    subjects,
    sessions: new SessionStore(storeOf(env.ctx), 'bench'),
    verifyToken: async () => ({ sub: 'bench', features: ['oral_t2_live'] }),
    corrections: env.corrections,
    interlocutor: (_mode, audio) => geminiInterlocutor({ ai, model: 'm', systemPrompt: (id) => buildSystemPrompt(subjects.cached(id)!), logger: env.ctx.logger, audio }),
    recordingsDir: join(tmpdir(), 'palabre-bench-t2'),
    recordings,
    timers: { examMs: 600_000, warningMs: 30_000, idleMs: 600_000, connectMs: 15_000 },
  },
  { sessionId: `bench-${process.pid}`, sujetId: 'club-de-sport', mode: 'audio', token: undefined },
);
const session = env.ctx.runtime.start('t2live', 't2:bench-sync', wired.logic, wired.input);
while (!session.getSnapshot().matches({ session: 'live' })) await sleep(5);
const wall: number[] = [];
const cpu: number[] = [];
for (let seq = 0; seq < 2000; seq++) {
  const pcm = Buffer.alloc(640, seq % 251);
  const c0 = process.cpuUsage();
  const t = performance.now();
  wired.audio.candidate(pcm);
  wall.push(performance.now() - t);
  const u = process.cpuUsage(c0);
  cpu.push((u.user + u.system) / 1000);
  if (seq % 20 === 0) await sleep(20);
}
session.send({ type: 'client.end' });
await env.close();
await recordings.stop();
(await import('node:fs')).rmSync(join(tmpdir(), 'palabre-bench-t2'), { recursive: true, force: true });
child.kill();

const rows = (['Up', 'Down'] as const).map((d) => {
  const p = done[`proxied${d}`];
  const x = done[`direct${d}`];
  return {
    direction: d === 'Up' ? 'candidate → Gemini' : 'Gemini → candidate',
    chunks: p.length,
    proxiedP50: r3(pct(p, 50)),
    proxiedP99: r3(pct(p, 99)),
    directP50: r3(pct(x, 50)),
    directP99: r3(pct(x, 99)),
    addedP50: r3(pct(p, 50) - pct(x, 50)),
    addedP99: r3(pct(p, 99) - pct(x, 99)),
  };
});
const sync = { chunks: wall.length, wallP50: r3(pct(wall, 50)), wallP99: r3(pct(wall, 99)), cpuP50: r3(pct(cpu, 50)), cpuP99: r3(pct(cpu, 99)) };
const result = { bench: 't2-latency', unit: 'ms', chunkMs: 20, rows, proxyWorkPerCandidateChunk: sync, targetAddedP99: 1, pass: rows.every((r) => r.addedP99 <= 1 && r.chunks === CHUNKS), loadavg1m: loadavg()[0] ?? 0 };
console.log(JSON.stringify(result));
console.table(rows);
console.table([{ 'proxy work per candidate chunk (ms)': 'wall', p50: sync.wallP50, p99: sync.wallP99 }, { 'proxy work per candidate chunk (ms)': 'CPU time', p50: sync.cpuP50, p99: sync.cpuP99 }]);
