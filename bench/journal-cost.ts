/**
 * What the conversation journal costs on the Skull's request → reply path, in one process, same
 * broker, same client: two Skull devices on two runtimes, one recorded (JOURNAL=on: the journal's
 * recorder on its runtime, a SQLite file store) and one not, driven in interleaved blocks (on, off,
 * on, off…) so that machine load hits both alike.
 *
 * Prints, as a JSON line then a table:
 *   - latency p50 of ai/request published → ai/response received, on and off, and their ratio
 *     (median of the per-block ratios);
 *   - CPU per request on and off (process.cpuUsage), and the journal's CPU per step: the difference
 *     over the steps it recorded (its flushes to SQLite included, they run in this process);
 *   - steps and bytes of step JSON per request (a Skull device is one long conversation: each
 *     request adds its steps), and bytes for a whole one-request conversation.
 *
 *   npx tsx bench/journal-cost.ts [rounds=5] [block=200]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { startEmbeddedBroker } from '../core/broker.js';
import { loadConfig } from '../core/config/index.js';
import { JournalRecorder, JournalStore } from '../core/journal/index.js';
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
const store = new JournalStore(await openAppStore({ db, migrations: await allMigrations() }));

const configFor = (prefix: string) => loadConfig({ env: { DATA_DIR: dir, LOG_LEVEL: 'silent', SKULL_PROVIDER: 'offline', SKULL_DEBOUNCE_MS: '0', SKULL_TOPIC_PREFIX: prefix, SKULL_DEVICE_ID: prefix, SKULL_PROMPT_FILE: 'prompts/skull/prompt.txt' }, dotenvPath: null, file: '' });

async function device(prefix: string, journal: boolean) {
  const runtime = new Runtime();
  const recorder = journal ? new JournalRecorder(runtime, { store }).start() : undefined;
  const svc = await startWiredSkull({ config: configFor(prefix), logger, runtime, provider: createOfflineProvider(), mqttUrl: broker.url, healthIntervalMs: 0 });
  return { prefix, runtime, recorder, svc };
}

const on = await device('on', true);
const off = await device('off', false);
const client: MqttClient = await mqtt.connectAsync(broker.url, { protocolVersion: 4, reconnectPeriod: 0 });
(client.stream as { setNoDelay?: (v: boolean) => void }).setNoDelay?.(true);
await client.subscribeAsync(['on/ai/response', 'on/ai/usage', 'off/ai/response', 'off/ai/usage'], { qos: 1 });

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
  const c = process.cpuUsage(c0);
  return { lat, cpuUs: c.user + c.system };
}

// Warm-up: both paths compiled by V8 before anything is measured.
for (let i = 0; i < 200; i++) {
  await request('on', i);
  await request('off', i);
}
await on.recorder!.flush();
const stepsOf = async (): Promise<number> => (await store.list()).find((c) => c.systemId === 'skull:on')?.steps ?? 0;
const stepsBefore = await stepsOf();
const all = { on: [] as number[], off: [] as number[], cpuOn: 0, cpuOff: 0 };
const ratios: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const a = await block('on');
  const b = await block('off');
  all.on.push(...a.lat);
  all.off.push(...b.lat);
  all.cpuOn += a.cpuUs;
  all.cpuOff += b.cpuUs;
  ratios.push(median(a.lat) / median(b.lat));
  process.stderr.write(`round ${r + 1}: on p50 ${r2(median(a.lat))} ms, off p50 ${r2(median(b.lat))} ms, load ${(loadavg()[0] ?? 0).toFixed(2)}\n`);
}
const t0 = process.cpuUsage();
await on.recorder!.flush();
const flushTail = process.cpuUsage(t0);
const requests = ROUNDS * BLOCK;
const steps = (await stepsOf()) - stepsBefore;
const cpuOnPerReq = (all.cpuOn + flushTail.user + flushTail.system) / requests;
const cpuOffPerReq = all.cpuOff / requests;
const stepsPerReq = steps / requests;
const id = on.recorder!.idOf('skull:on')!;
const bytes = await store.bytesOf(id);
const recorded = (await store.get(id))!;

// A whole conversation of one request: a fresh device, one exchange, stopped.
const one = await device('one', true);
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
  p50_off_ms: r2(median(all.off)),
  ratio_on_off: r2(median(ratios)),
  cpu_per_request_on_us: Math.round(cpuOnPerReq),
  cpu_per_request_off_us: Math.round(cpuOffPerReq),
  steps_per_request: r2(stepsPerReq),
  journal_us_per_step: r2((cpuOnPerReq - cpuOffPerReq) / stepsPerReq),
  bytes_per_request: Math.round((bytes / recorded.steps.length) * stepsPerReq),
  one_request_conversation: { steps: oneSteps, bytes: oneBytes },
  load: r2(loadavg()[0] ?? 0),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
console.table({
  'latency p50 (ms)': { on: result.p50_on_ms, off: result.p50_off_ms },
  'CPU per request (µs)': { on: result.cpu_per_request_on_us, off: result.cpu_per_request_off_us },
});
process.stdout.write(`journal: ${result.journal_us_per_step} µs of CPU per step, ${result.steps_per_request} steps and ${result.bytes_per_request} bytes per request; a one-request conversation: ${oneSteps} steps, ${oneBytes} bytes; latency ratio on/off ${result.ratio_on_off}\n`);

await client.endAsync();
for (const d of [on, off]) {
  await d.svc.stop();
  d.runtime.shutdown();
}
await on.recorder!.close();
await broker.close();
db.close();
rmSync(dir, { recursive: true, force: true });
