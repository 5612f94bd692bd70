/**
 * Skull fleet figures, one process, zero-ms model, through a real broker (Debian mosquitto when
 * installed, else the embedded aedes):
 *   1. memory per idle device actor: heap after GC, before/after `idle` devices each answered once;
 *   2. memory per active device actor: `active` more devices whose model call is held open;
 *   3. 10,000 devices registered (live actors): heap, RSS and how long registering took;
 *   4. load: `loadDevices` devices each send one asr/text every 10 s for `seconds` s (100 req/s for
 *      1,000), spread evenly. asr/text → ai/response measured at the client, with a bare MQTT echo
 *      round trip (two broker hops, like the Skull path) probed 5×/s under the same load;
 *      overhead = p50(skull) − p50(bare). Event-loop lag from monitorEventLoopDelay.
 * Real time throughout (no compression). The load generator shares the process (and the event
 * loop) with the fleet; the broker runs apart when it is mosquitto.
 *
 *   npx tsx --expose-gc bench/skull-fleet.ts [seconds=60] [loadDevices=1000] [registered=10000]
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import os from 'node:os';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { Runtime } from '../core/runtime.js';
import { silentLogger } from '../core/log.js';
import { startWiredSkullFleet } from '../actors/skull/surface.js';
import type { GenerateRequest, GenerateResult, LlmProvider } from '../machines/llmPort.js';
import { embeddedBroker, testConfig } from '../test/skull/support.js';
import { findBinary } from '../test/support/requires.js';

const SECONDS = Number(process.argv[2] ?? 60);
const LOAD_DEVICES = Number(process.argv[3] ?? 1000);
const REGISTERED = Number(process.argv[4] ?? 10_000);
const IDLE = 2000;
const ACTIVE = 1000;
const PERIOD_MS = 10_000;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with --expose-gc (npx tsx --expose-gc bench/skull-fleet.ts) for the memory figures');
  process.exit(2);
}
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const MB = (b: number) => Math.round((b / 1024 / 1024) * 10) / 10;
const KB = (b: number) => Math.round((b / 1024) * 10) / 10;
const r2 = (x: number) => Math.round(x * 100) / 100;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** Zero-ms model; while `hold` is set, calls wait until released (active devices). */
let held: Array<() => void> | undefined;
const provider: LlmProvider = {
  name: 'offline',
  generate: async (req: GenerateRequest): Promise<GenerateResult> => {
    if (held) await new Promise<void>((resolve) => held!.push(resolve));
    return { text: 'Bonjour ! Je suis Skull.', model: req.model, provider: 'offline', usage: { inputTokens: 10, outputTokens: 5, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 0 } };
  },
};

/**
 * Our own mosquitto with no bound on queued messages: mosquitto's default (1,000 QoS 1 messages
 * queued per client) would drop a burst of a thousand inputs on their way to the fleet's one
 * connection — a broker setting to raise for a fleet, not a property of palabre.
 */
async function benchMosquitto(bin: string): Promise<{ url: string; kind: 'mosquitto'; close(): Promise<void> }> {
  const port = await new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const addr = srv.address() as net.AddressInfo;
      srv.close(() => resolve(addr.port));
    });
  });
  const dir = mkdtempSync(join(os.tmpdir(), 'palabre-bench-mosq-'));
  writeFileSync(join(dir, 'm.conf'), `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\nset_tcp_nodelay true\nmax_queued_messages 0\nmax_inflight_messages 0\n`);
  const child = spawn(bin, ['-c', join(dir, 'm.conf')], { stdio: 'ignore' });
  const url = `mqtt://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await (await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 500 })).endAsync();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { url, kind: 'mosquitto', close: async () => void child.kill('SIGTERM') };
}
const mosquittoBin = findBinary('mosquitto');
const broker = mosquittoBin ? await benchMosquitto(mosquittoBin) : await embeddedBroker();
const prefix = `bench-fleet-${Date.now().toString(36)}`;
const runtime = new Runtime();
const fleet = await startWiredSkullFleet({
  config: testConfig({ SKULL_FLEET_PREFIX: prefix, SKULL_FLEET_MAX_ACTORS: String(REGISTERED * 2), SKULL_IDLE_STOP_S: '3600', SKULL_DEBOUNCE_MS: '0' }),
  logger: silentLogger(),
  runtime,
  provider,
  mqttUrl: broker.url,
  healthIntervalMs: 0,
});
const client = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0, protocolVersion: 4 });
(client.stream as { setNoDelay?: (v: boolean) => void }).setNoDelay?.(true);
const sentAt = new Map<string, number>();
const latencies: number[] = [];
let answered = 0;
let record = false;
client.on('message', (topic) => {
  if (topic.startsWith('bench-echo/')) return;
  const id = topic.slice(prefix.length + 1, topic.indexOf('/', prefix.length + 1));
  const t0 = sentAt.get(id);
  answered++;
  if (t0 !== undefined) {
    sentAt.delete(id);
    if (record) latencies.push(performance.now() - t0);
  }
});
await client.subscribeAsync(`${prefix}/+/ai/response`, { qos: 1 });
const ask = (id: string, text: string) => {
  sentAt.set(id, performance.now());
  return client.publishAsync(`${prefix}/${id}/asr/text`, JSON.stringify({ text }), { qos: 1 });
};
async function waitFor(pred: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timeout: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
/** Registers devices `from`..`to-1` (one answered turn each), in batches. */
async function register(from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 500) {
    const target = answered + Math.min(500, to - i);
    const sends: Array<Promise<unknown>> = [];
    for (let j = i; j < Math.min(to, i + 500); j++) sends.push(ask(`dev-${j}`, `Bonjour ${j}`));
    await Promise.all(sends);
    await waitFor(() => answered >= target, `register ${i}`, 600_000);
    if ((i + 500) % 2000 === 0) phaseLog(`${i + 500} devices`);
  }
  await waitFor(() => fleet.health().busy_actors === 0, 'devices idle');
}

const phaseLog = (what: string) => console.error(`${new Date().toISOString()} ${what}`);
// 1. Idle device actors.
const base = heap();
await register(0, IDLE);
const afterIdle = heap();
const perIdle = (afterIdle - base) / IDLE;
phaseLog('idle devices registered');

// 2. Active device actors: a model call in flight each.
held = [];
const activeIds = Array.from({ length: ACTIVE }, (_, k) => `act-${k}`);
await Promise.all(activeIds.map((id, k) => ask(id, `Question ${k}`)));
await waitFor(() => (held?.length ?? 0) === ACTIVE, 'active calls held', 600_000);
phaseLog('active devices held');
const afterActive = heap();
const perActive = (afterActive - afterIdle) / ACTIVE;
const release = held;
held = undefined;
for (const r of release) r();
await waitFor(() => fleet.health().busy_actors === 0, 'active devices answered');

// 3. Up to REGISTERED live device actors.
const t0 = performance.now();
const already = IDLE + ACTIVE;
await register(IDLE, IDLE + Math.max(0, REGISTERED - already));
const registerS = (performance.now() - t0) / 1000;
phaseLog('all devices registered');
if (process.env.BENCH_EXIT_AFTER_REGISTER) process.exit(0);
const afterAll = heap();
const live = fleet.health().live_actors;
const rss = process.memoryUsage().rss;

// 4. Load: LOAD_DEVICES devices, one asr/text each every 10 s, evenly spread; bare probes 5×/s.
const echo = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0, protocolVersion: 4 });
(echo.stream as { setNoDelay?: (v: boolean) => void }).setNoDelay?.(true);
echo.on('message', (_t, payload) => void echo.publishAsync('bench-echo/out', payload, { qos: 1 }));
await echo.subscribeAsync('bench-echo/in', { qos: 1 });
const bare: number[] = [];
const probeAt = new Map<string, number>();
client.on('message', (topic, payload) => {
  if (topic !== 'bench-echo/out') return;
  const t = probeAt.get(payload.toString());
  if (t !== undefined && record) bare.push(performance.now() - t);
});
await client.subscribeAsync('bench-echo/out', { qos: 1 });

const lag = monitorEventLoopDelay({ resolution: 1 });
const loadIds = Array.from({ length: LOAD_DEVICES }, (_, k) => `dev-${k}`);
const sendsPerSecond = LOAD_DEVICES / (PERIOD_MS / 1000);
const total = Math.round(sendsPerSecond * SECONDS);
const answeredBefore = answered;
record = true;
lag.enable();
const start = performance.now();
let probe = 0;
let nextProbe = start;
for (let n = 0; n < total; n++) {
  const due = start + (n * 1000) / sendsPerSecond;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  void ask(loadIds[n % LOAD_DEVICES]!, `Question ${n}`);
  if (performance.now() >= nextProbe) {
    const key = `p${probe++}`;
    probeAt.set(key, performance.now());
    void client.publishAsync('bench-echo/in', key, { qos: 1 });
    nextProbe += 200;
  }
}
await waitFor(() => answered - answeredBefore >= total, 'load answered', 30_000);
lag.disable();
record = false;
const runS = (performance.now() - start) / 1000;

const lat = [...latencies].sort((a, b) => a - b);
const bareSorted = [...bare].sort((a, b) => a - b);
const result = {
  bench: 'skull-fleet',
  broker: broker.kind,
  node: process.version,
  cpus: os.cpus().length,
  memory: {
    per_idle_device_kb: KB(perIdle),
    per_active_device_kb: KB(perActive),
    registered_devices: live,
    heap_with_registered_mb: MB(afterAll),
    rss_mb: MB(rss),
    register_s: r2(registerS),
  },
  load: {
    devices: LOAD_DEVICES,
    period_s: PERIOD_MS / 1000,
    seconds: SECONDS,
    run_s: r2(runS),
    requests: total,
    answered: latencies.length,
    asr_to_response_ms: { p50: r2(pct(lat, 50)), p99: r2(pct(lat, 99)), max: r2(lat.at(-1) ?? NaN) },
    bare_round_trip_ms: { p50: r2(pct(bareSorted, 50)), p99: r2(pct(bareSorted, 99)), probes: bare.length },
    overhead_p50_ms: r2(pct(lat, 50) - pct(bareSorted, 50)),
    event_loop_lag_ms: { p50: r2(lag.percentile(50) / 1e6), p99: r2(lag.percentile(99) / 1e6), max: r2(lag.max / 1e6) },
  },
  health: fleet.health(),
};
console.log(JSON.stringify(result, null, 2));

await echo.endAsync();
await client.endAsync();
await fleet.stop();
runtime.shutdown();
await broker.close();
process.exit(0);
