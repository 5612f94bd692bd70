/**
 * Where Skull's time goes between an ai/request and its ai/response, in one process,
 * on the same broker, per turn (medians of TURNS turns after a warm-up):
 *   hop       one broker hop (client publishes, a subscriber receives): the floor of each half;
 *   inbound   request published → the provider's generate() called: hop + transport, zod, chart
 *             (routing, responding, the attempt and its generate actor, prompt building and
 *             token counting);
 *   outbound  generate() returned → ai/response received: post-processing, chart (prepareReply,
 *             publishing), publishReply + hop;
 *   prompt    buildPrompt + o200k token counting alone, called directly with the same input;
 *   events    inspection events per turn (microsteps, actor events): the chart's step count.
 *
 *   npx tsx bench/skull-phases.ts [turns=1000]
 */
import { loadavg } from 'node:os';
import mqtt, { type MqttClient } from 'mqtt';
import { Runtime } from '../core/runtime.js';
import { silentLogger } from '../core/log.js';
import { startWiredSkull } from '../actors/skull/surface.js';
import { buildPrompt } from '../prompts/skull/contextPrompt.js';
import { o200k } from '../actors/skull/tokens.js';
import type { GenerateRequest, GenerateResult, LlmProvider } from '../machines/llmPort.js';
import { embeddedBroker, mosquittoBroker, testConfig } from '../test/skull/support.js';
import { findBinary } from '../test/support/requires.js';

const TURNS = Math.max(100, Number(process.argv[2] ?? 1000));
let generatedAt = 0;
let returnedAt = 0;
const instant: LlmProvider = {
  name: 'offline',
  generate: async (req: GenerateRequest): Promise<GenerateResult> => {
    generatedAt = performance.now();
    const r = { text: 'Bonjour ! Je suis Skull.', model: req.model, provider: 'offline' as const, usage: { inputTokens: 10, outputTokens: 5, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 0 } };
    returnedAt = performance.now();
    return r;
  },
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

const broker = findBinary('mosquitto') ? await mosquittoBroker() : await embeddedBroker();
const runtime = new Runtime();
const svc = await startWiredSkull({ config: testConfig({ SKULL_DEBOUNCE_MS: '0', SKULL_TOPIC_PREFIX: 'ph' }), logger: silentLogger(), runtime, provider: instant, mqttUrl: broker.url, healthIntervalMs: 0 });
const a: MqttClient = await mqtt.connectAsync(broker.url, { protocolVersion: 4, reconnectPeriod: 0 });
(a.stream as { setNoDelay?: (v: boolean) => void }).setNoDelay?.(true);
await a.subscribeAsync(['ph/ai/response', 'ph/ai/usage', 'ph/hop'], { qos: 1 });

function wait(topic: string, publish: () => void): Promise<number> {
  return new Promise((resolve) => {
    const on = (t: string): void => {
      if (t !== topic) return;
      a.off('message', on);
      resolve(performance.now());
    };
    a.on('message', on);
    publish();
  });
}
const idle = async (): Promise<void> => {
  while (!svc.actor.getSnapshot().matches({ turn: 'idle' })) await new Promise((r) => setImmediate(r));
};

let events = 0;
const rows = { hop: [] as number[], inbound: [] as number[], outbound: [] as number[], total: [] as number[] };
for (let i = 0; i < TURNS + 200; i++) {
  const h0 = performance.now();
  const h1 = await wait('ph/hop', () => void a.publish('ph/hop', 'x', { qos: 1 }));
  const t0 = performance.now();
  const usage = wait('ph/ai/usage', () => undefined);
  const t2 = await wait('ph/ai/response', () => void a.publish('ph/ai/request', JSON.stringify({ text: `Raconte une blague numéro ${i}` }), { qos: 1 }));
  await usage;
  await idle();
  if (i < 200) continue;
  rows.hop.push(h1 - h0);
  rows.inbound.push(generatedAt - t0);
  rows.outbound.push(t2 - returnedAt);
  rows.total.push(t2 - t0);
}
// The chart's steps per turn: inspection events of one more turn (inspection is off above).
const off = runtime.onInspect(() => void events++);
const before = events;
await wait('ph/ai/usage', () => void a.publish('ph/ai/request', JSON.stringify({ text: 'Encore une' }), { qos: 1 }));
await idle();
const perTurn = events - before;
off();
// Prompt building and token counting alone.
const promptMs: number[] = [];
const history = [{ role: 'user' as const, text: 'Raconte une blague numéro 1' }, { role: 'assistant' as const, text: 'Bonjour ! Je suis Skull.' }];
for (let i = 0; i < TURNS + 200; i++) {
  const t = performance.now();
  buildPrompt({ system: 'Tu es Skull, un crâne qui parle.', user: `Raconte une blague numéro ${i}`, context: history, lang: 'fr' }, 2048, o200k);
  if (i >= 200) promptMs.push(performance.now() - t);
}
await a.endAsync();
await svc.stop();
runtime.shutdown();
await broker.close();
const hop = median(rows.hop);
const result = {
  bench: 'skull-phases',
  broker: broker.kind,
  turns: TURNS,
  hop_ms: r3(hop),
  inbound_ms: r3(median(rows.inbound)),
  palabre_inbound_ms: r3(median(rows.inbound) - hop),
  outbound_ms: r3(median(rows.outbound)),
  palabre_outbound_ms: r3(median(rows.outbound) - hop),
  total_ms: r3(median(rows.total)),
  prompt_and_tokens_ms: r3(median(promptMs)),
  inspection_events_per_turn: perTurn,
  loadavg1m: r3(loadavg()[0] ?? 0),
};
console.log(JSON.stringify(result));
process.exit(0);
