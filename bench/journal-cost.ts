/**
 * What the conversation journal costs on the Skull's request → reply path, in one process, same
 * broker, same client: three Skull devices on three runtimes, driven in interleaved blocks (on,
 * batch, off, on, batch, off…) so that machine load hits them alike:
 *   - `on`: JOURNAL=on as served: the recorder on its runtime, a SQLite file store, every step
 *     written before the reply it led to leaves (core/journal/durable.ts);
 *   - `batch`: the same recorder written in batches only (`durable: false`: a killed process loses
 *     up to a second of steps), the journal as it was before the durable write;
 *   - `off`: no journal.
 *
 * Prints, as a JSON line then a table:
 *   - latency p50 of ai/request published → ai/response received for each, and the ratios on/off
 *     and batch/off (median of the per-round ratios);
 *   - CPU per request for each (process.cpuUsage), and the journal's CPU per step: the difference
 *     with off over the steps it recorded (its writes to SQLite included, they run in this process);
 *   - steps and bytes of step JSON per request (a Skull device is one long conversation: each
 *     request adds its steps), and bytes for a whole one-request conversation.
 *
 *   npx tsx bench/journal-cost.ts [rounds=5] [block=200] [--no-spill]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { startEmbeddedBroker } from '../core/broker.js';
import { loadPalabreConfig } from '../actors/palabreConfig.js';
import { JournalRecorder } from '../core/journal/recorder.js';
import { JournalStore } from '../core/journal/store.js';
import { silentLogger } from '../core/log.js';
import { Runtime } from '../core/runtime.js';
import { openAppStore } from '../core/store/appStore.js';
import { openStore } from '../core/store/db.js';
import { createOfflineProvider } from '../actors/llm/offline.js';
import { startWiredSkull } from '../actors/skull/surface.js';
import { allMigrations } from '../actors/serve.js';

const ROUNDS = Number(process.argv[2] ?? 5);
const BLOCK = Number(process.argv[3] ?? 200);
const dir = mkdtempSync(join(tmpdir(), 'palabre-journal-cost-'));
const logger = silentLogger();
const broker = await startEmbeddedBroker({ host: '127.0.0.1', port: 0, logger });
const db = openStore({ path: join(dir, 'palabre.db') });
// With its file, as `palabre serve` opens it: the write made while a reply waits goes to the
// spill file beside it (core/journal/spill.ts). `--no-spill`: a SQLite transaction instead.
const store = new JournalStore(await openAppStore({ db, migrations: await allMigrations() }), process.argv.includes('--no-spill') ? {} : { file: join(dir, 'palabre.db') });

const configFor = (prefix: string) => loadPalabreConfig({ env: { DATA_DIR: dir, LOG_LEVEL: 'silent', SKULL_PROVIDER: 'offline', SKULL_DEBOUNCE_MS: '0', SKULL_TOPIC_PREFIX: prefix, SKULL_DEVICE_ID: prefix, SKULL_PROMPT_FILE: 'prompts/skull/prompt.txt' }, dotenvPath: null, file: '' });

/**
 * Each recorder writes its batch, and the WAL is checkpointed, at the end of its own block (no
 * timer): its CPU is counted there, not in another mode's block.
 */
const recorders = new Map<string, JournalRecorder>();

async function device(prefix: string, journal: 'durable' | 'batch' | 'off') {
  const runtime = new Runtime();
  const recorder = journal === 'off' ? undefined : new JournalRecorder(runtime, { store, durable: journal === 'durable', flushMs: 3_600_000 }).start();
  const svc = await startWiredSkull({ config: configFor(prefix), logger, runtime, provider: createOfflineProvider(), mqttUrl: broker.url, healthIntervalMs: 0 });
  if (recorder) recorders.set(prefix, recorder);
  return { prefix, runtime, recorder, svc };
}

const on = await device('on', 'durable');
const batch = await device('batch', 'batch');
const off = await device('off', 'off');
const client: MqttClient = await mqtt.connectAsync(broker.url, { protocolVersion: 4, reconnectPeriod: 0 });
(client.stream as { setNoDelay?: (v: boolean) => void }).setNoDelay?.(true);
await client.subscribeAsync(['on', 'batch', 'off'].flatMap((p) => [`${p}/ai/response`, `${p}/ai/usage`]), { qos: 1 });

/** One request: publish, time to ai/response, then wait for ai/usage so that turns never overlap. */
function request(prefix: string, i: number): Promise<number> {
  return new Promise((resolve) => {
    let t = 0;
    const onMessage = (topic: string): void => {
      if (topic === `${prefix}/ai/response`) t = performance.now() - t0;
      else if (topic === `${prefix}/ai/usage`) {
        client.off('message', onMessage);
        resolve(t);
      }
    };
    client.on('message', onMessage);
    const t0 = performance.now();
    void client.publishAsync(`${prefix}/ai/request`, JSON.stringify({ text: `Raconte une blague numéro ${i}` }), { qos: 1 });
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const r2 = (x: number): number => Math.round(x * 100) / 100;

async function block(prefix: string): Promise<{ lat: number[]; cpuUs: number }> {
  const lat: number[] = [];
  const c0 = process.cpuUsage();
  for (let i = 0; i < BLOCK; i++) lat.push(await request(prefix, i));
  const recorder = recorders.get(prefix);
  if (recorder) {
    await recorder.flush();
    await store.checkpoint();
  }
  const c = process.cpuUsage(c0);
  return { lat, cpuUs: c.user + c.system };
}

// Warm-up: every path compiled by V8 before anything is measured.
for (let i = 0; i < 200; i++) {
  await request('on', i);
  await request('batch', i);
  await request('off', i);
}
await on.recorder!.flush();
await batch.recorder!.flush();
const stepsOf = async (systemId: string): Promise<number> => (await store.list()).find((c) => c.systemId === systemId)?.steps ?? 0;
const stepsBefore = await stepsOf('skull:on');
const all = { on: [] as number[], batch: [] as number[], off: [] as number[], cpuOn: 0, cpuBatch: 0, cpuOff: 0 };
const ratios: number[] = [];
const batchRatios: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const a = await block('on');
  const c = await block('batch');
  const b = await block('off');
  all.on.push(...a.lat);
  all.batch.push(...c.lat);
  all.off.push(...b.lat);
  all.cpuOn += a.cpuUs;
  all.cpuBatch += c.cpuUs;
  all.cpuOff += b.cpuUs;
  ratios.push(median(a.lat) / median(b.lat));
  batchRatios.push(median(c.lat) / median(b.lat));
  process.stderr.write(`round ${r + 1}: p50 on ${r2(median(a.lat))} ms, batch ${r2(median(c.lat))} ms, off ${r2(median(b.lat))} ms, load ${(loadavg()[0] ?? 0).toFixed(2)}\n`);
}
const requests = ROUNDS * BLOCK;
const steps = (await stepsOf('skull:on')) - stepsBefore;
const cpuOnPerReq = all.cpuOn / requests;
const cpuBatchPerReq = all.cpuBatch / requests;
const cpuOffPerReq = all.cpuOff / requests;
const stepsPerReq = steps / requests;
const id = on.recorder!.idOf('skull:on')!;
const bytes = await store.bytesOf(id);
const recorded = (await store.get(id))!;

// A whole conversation of one request: a fresh device, one exchange, stopped.
const one = await device('one', 'durable');
await client.subscribeAsync(['one/ai/response', 'one/ai/usage'], { qos: 1 });
await request('one', 1);
const oneId = one.recorder!.idOf('skull:one')!;
await one.svc.stop();
one.runtime.shutdown();
await one.recorder!.close();
const oneBytes = await store.bytesOf(oneId);
const oneSteps = (await store.get(oneId))!.steps.length;

const result = {
  bench: 'journal-cost',
  requests,
  p50_on_ms: r2(median(all.on)),
  p50_batch_ms: r2(median(all.batch)),
  p50_off_ms: r2(median(all.off)),
  ratio_on_off: r2(median(ratios)),
  ratio_batch_off: r2(median(batchRatios)),
  cpu_per_request_on_us: Math.round(cpuOnPerReq),
  cpu_per_request_batch_us: Math.round(cpuBatchPerReq),
  cpu_per_request_off_us: Math.round(cpuOffPerReq),
  steps_per_request: r2(stepsPerReq),
  journal_us_per_step: r2((cpuOnPerReq - cpuOffPerReq) / stepsPerReq),
  journal_batch_us_per_step: r2((cpuBatchPerReq - cpuOffPerReq) / stepsPerReq),
  bytes_per_request: Math.round((bytes / recorded.steps.length) * stepsPerReq),
  one_request_conversation: { steps: oneSteps, bytes: oneBytes },
  load: r2(loadavg()[0] ?? 0),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
console.table({
  'latency p50 (ms)': { on: result.p50_on_ms, batch: result.p50_batch_ms, off: result.p50_off_ms },
  'CPU per request (µs)': { on: result.cpu_per_request_on_us, batch: result.cpu_per_request_batch_us, off: result.cpu_per_request_off_us },
});
process.stdout.write(`journal: ${result.journal_us_per_step} µs of CPU per step durable (${result.journal_batch_us_per_step} in batches only), ${result.steps_per_request} steps and ${result.bytes_per_request} bytes per request; a one-request conversation: ${oneSteps} steps, ${oneBytes} bytes; latency ratio on/off ${result.ratio_on_off} (batch/off ${result.ratio_batch_off})\n`);

await client.endAsync();
for (const d of [on, batch, off]) {
  await d.svc.stop();
  d.runtime.shutdown();
}
await on.recorder!.close();
await batch.recorder!.close();
await broker.close();
db.close();
rmSync(dir, { recursive: true, force: true });
