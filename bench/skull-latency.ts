/**
 * Skull overhead: asr/text → ai/response through a real broker with a 0-ms model, against a bare
 * MQTT round trip measured in the same run on the same broker:
 *   bare  = client A publishes (QoS 1) → broker → echo client republishes (QoS 1) → broker → A
 *           (two broker hops, like the Skull path)
 *   skull = client A publishes asr/text → broker → palabre skull (transport, zod, chart, llmCall,
 *           post-processing, publishReply) → broker → A receives ai/response
 * Overhead = paired median of (skull − bare) per turn. Target: ≤ 2 ms p50.
 *
 *   npx tsx bench/skull-latency.ts [turns=1000]
 *
 * Runs on the embedded aedes broker and, when the binary exists, on Debian mosquitto (MQTT 5).
 */
import os from 'node:os';
import mqtt, { type MqttClient } from 'mqtt';
import { Runtime } from '../core/runtime.js';
import { silentLogger } from '../core/log.js';
import { startWiredSkull } from '../actors/skull/surface.js';
import type { GenerateRequest, GenerateResult, LlmProvider } from '../machines/llmPort.js';
import { embeddedBroker, mosquittoBroker, testConfig, type TestBroker } from '../test/skull/support.js';
import { findBinary } from '../test/support/requires.js';

const TURNS = Math.max(100, Number(process.argv[2] ?? 1000));
const WARMUP = 100;

/** The 0-ms model: answers in the same tick. */
const instant: LlmProvider = {
  name: 'offline',
  generate: async (req: GenerateRequest): Promise<GenerateResult> => ({
    text: 'Bonjour ! Je suis Skull.',
    model: req.model,
    provider: 'offline',
    usage: { inputTokens: 10, outputTokens: 5, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 0 },
  }),
};

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const sortNum = (a: number[]) => [...a].sort((x, y) => x - y);
const r3 = (x: number) => Math.round(x * 1000) / 1000;

async function once(client: MqttClient, topic: string, publish: () => Promise<unknown>): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const onMsg = (t: string) => {
      if (t !== topic) return;
      client.off('message', onMsg);
      resolve(performance.now() - t0);
    };
    client.on('message', onMsg);
    publish().catch(reject);
  });
}

async function measure(broker: TestBroker) {
  const runtime = new Runtime();
  const svc = await startWiredSkull({
    config: testConfig({ SKULL_DEBOUNCE_MS: '0', SKULL_TOPIC_PREFIX: 'bench' }),
    logger: silentLogger(),
    runtime,
    provider: instant,
    mqttUrl: broker.url,
    healthIntervalMs: 0,
  });
  const a = await mqtt.connectAsync(broker.url, { protocolVersion: 4, reconnectPeriod: 0 });
  const echo = await mqtt.connectAsync(broker.url, { protocolVersion: 4, reconnectPeriod: 0 });
  (a.stream as { setNoDelay?: (v: boolean) => void }).setNoDelay?.(true);
  (echo.stream as { setNoDelay?: (v: boolean) => void }).setNoDelay?.(true);
  await echo.subscribeAsync('bench/ping', { qos: 1 });
  echo.on('message', (t, p) => {
    if (t === 'bench/ping') void echo.publishAsync('bench/pong', p, { qos: 1 });
  });
  await a.subscribeAsync(['bench/pong', 'bench/ai/response'], { qos: 1 });

  const bare: number[] = [];
  const skull: number[] = [];
  const diff: number[] = [];
  for (let i = 0; i < TURNS + WARMUP; i++) {
    const b = await once(a, 'bench/pong', () => a.publishAsync('bench/ping', `{"i":${i}}`, { qos: 1 }));
    // Different text each turn: the debounce must not swallow it (and SKULL_DEBOUNCE_MS=0 anyway).
    const s = await once(a, 'bench/ai/response', () => a.publishAsync('bench/asr/text', JSON.stringify({ ts_ms: i, text: `bonjour numéro ${i}` }), { qos: 1 }));
    // Let the usage publish and the PUBACK finish so that turns do not overlap (busy).
    while (!svc.actor.getSnapshot().matches({ turn: 'idle' })) await new Promise((r) => setImmediate(r));
    if (i >= WARMUP) {
      bare.push(b);
      skull.push(s);
      diff.push(s - b);
    }
  }
  const h = svc.health();
  await a.endAsync();
  await echo.endAsync();
  await svc.stop();
  runtime.shutdown();
  const [sb, ss, sd] = [sortNum(bare), sortNum(skull), sortNum(diff)];
  return {
    broker: broker.kind,
    mqtt: svc.protocolVersion === 5 ? '5' : '3.1.1',
    bare_p50_ms: r3(pct(sb, 50)),
    bare_p99_ms: r3(pct(sb, 99)),
    skull_p50_ms: r3(pct(ss, 50)),
    skull_p99_ms: r3(pct(ss, 99)),
    overhead_p50_ms: r3(pct(sd, 50)),
    overhead_p99_ms: r3(pct(sd, 99)),
    ratio_p50: r3(pct(ss, 50) / pct(sb, 50)),
    responses: h.in_flight === 0 ? TURNS + WARMUP : -1,
  };
}

const results = [];
const aedes = await embeddedBroker();
results.push(await measure(aedes));
await aedes.close();
if (findBinary('mosquitto')) {
  const mosq = await mosquittoBroker();
  results.push(await measure(mosq));
  await mosq.close();
}

const target = 2;
const line = {
  bench: 'skull-latency',
  turns: TURNS,
  node: process.version,
  cpus: os.cpus().length,
  target_overhead_p50_ms: target,
  pass: results.every((r) => r.overhead_p50_ms <= target),
  results,
};
console.log(JSON.stringify(line));
console.log('');
console.log('broker     mqtt   bare p50/p99 (ms)   skull p50/p99 (ms)   overhead p50/p99 (ms)   ratio p50');
for (const r of results) {
  console.log(
    `${r.broker.padEnd(10)} ${r.mqtt.padEnd(6)} ${`${r.bare_p50_ms} / ${r.bare_p99_ms}`.padEnd(19)} ${`${r.skull_p50_ms} / ${r.skull_p99_ms}`.padEnd(20)} ${`${r.overhead_p50_ms} / ${r.overhead_p99_ms}`.padEnd(23)} ${r.ratio_p50}`,
  );
}
console.log(`target: overhead p50 ≤ ${target} ms → ${line.pass ? 'PASS' : 'FAIL'}`);
process.exit(0);
