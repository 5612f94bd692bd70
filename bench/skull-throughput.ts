/**
 * Sustained requests/s before drops, with an 800 ms model, through a real broker (embedded aedes).
 *   1. overload: ai/request at 3/s for 12 s → how many are answered per second (the capacity) and
 *      how many are dropped (the queue stays bounded: at most SKULL_MAX_IN_FLIGHT in flight);
 *   2. at 90 % of that capacity for 20 s → drops must be 0;
 *   3. at 110 % for 20 s → drops appear (the limit is real, not an artefact of a short run).
 * Real time: this measures the service, not a model of it.
 *
 *   npx tsx bench/skull-throughput.ts [modelMs=800]
 */
import mqtt from 'mqtt';
import { Runtime } from '../core/runtime.js';
import { silentLogger } from '../core/log.js';
import { startWiredSkull } from '../actors/skull/surface.js';
import type { GenerateRequest, GenerateResult, LlmProvider } from '../machines/llmPort.js';
import { embeddedBroker, testConfig } from '../test/skull/support.js';

const MODEL_MS = Number(process.argv[2] ?? 800);
const slow: LlmProvider = {
  name: 'offline',
  generate: (req: GenerateRequest) =>
    new Promise<GenerateResult>((resolve) =>
      setTimeout(() => resolve({ text: 'Une réponse.', model: req.model, provider: 'offline', usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: MODEL_MS } }), MODEL_MS),
    ),
};

const broker = await embeddedBroker();
const runtime = new Runtime();

interface Phase { rate: number; seconds: number; sent: number; answered: number; dropped: number; served_per_s: number; max_in_flight: number }

async function phase(rate: number, seconds: number): Promise<Phase> {
  const prefix = `tp${Math.round(rate * 100)}-${Date.now().toString(36)}`;
  const svc = await startWiredSkull({ config: testConfig({ SKULL_TOPIC_PREFIX: prefix, SKULL_DEVICE_ID: prefix }), logger: silentLogger(), runtime, provider: slow, mqttUrl: broker.url, healthIntervalMs: 0 });
  const c = await mqtt.connectAsync(broker.url, { protocolVersion: 4, reconnectPeriod: 0 });
  let answered = 0;
  let lastAnswer = 0;
  c.on('message', () => {
    answered++;
    lastAnswer = performance.now();
  });
  await c.subscribeAsync(`${prefix}/ai/response`, { qos: 1 });
  let maxInFlight = 0;
  const sub = svc.actor.subscribe(() => {
    maxInFlight = Math.max(maxInFlight, svc.health().in_flight);
  });
  const t0 = performance.now();
  const n = Math.round(rate * seconds);
  const sends: Array<Promise<unknown>> = [];
  for (let i = 0; i < n; i++) {
    const due = t0 + (i * 1000) / rate;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    sends.push(c.publishAsync(`${prefix}/ai/request`, JSON.stringify({ text: `Question ${i}` }), { qos: 1 }));
  }
  await Promise.all(sends);
  // Drain: every request is either answered or dropped.
  const deadline = performance.now() + 30_000;
  while (answered + svc.health().dropped < n && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const h = svc.health();
  sub.unsubscribe();
  await c.endAsync();
  await svc.stop();
  runtime.stop(svc.systemId);
  const span = (lastAnswer - t0) / 1000;
  return { rate, seconds, sent: n, answered, dropped: h.dropped, served_per_s: Math.round((answered / span) * 100) / 100, max_in_flight: maxInFlight };
}

const overload = await phase(3, 12);
const capacity = overload.served_per_s;
const under = await phase(Math.round(capacity * 0.9 * 100) / 100, 20);
const over = await phase(Math.round(capacity * 1.1 * 100) / 100, 20);
await broker.close();
runtime.shutdown();

const sustained = under.dropped === 0 ? under.rate : 0;
console.log(JSON.stringify({ bench: 'skull-throughput', model_ms: MODEL_MS, capacity_req_s: capacity, sustained_req_s_without_drops: sustained, theoretical_req_s: Math.round((1000 / MODEL_MS) * 100) / 100, phases: [overload, under, over] }));
console.log('');
console.log('rate (req/s)  seconds  sent  answered  dropped  served/s  max in flight');
for (const p of [overload, under, over]) {
  console.log(`${String(p.rate).padEnd(13)} ${String(p.seconds).padEnd(8)} ${String(p.sent).padEnd(5)} ${String(p.answered).padEnd(9)} ${String(p.dropped).padEnd(8)} ${String(p.served_per_s).padEnd(9)} ${p.max_in_flight}`);
}
console.log(`capacity with a ${MODEL_MS} ms model: ${capacity} req/s (1 generation at a time: ≤ ${(1000 / MODEL_MS).toFixed(2)}); no drops at ${under.rate} req/s over 20 s`);
process.exit(0);
