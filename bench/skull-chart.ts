/**
 * The Skull chart's own cost per turn, without MQTT (where Skull's time beyond a minimal responder goes). The
 * wired chart (the generate actor on the offline persona provider, prompt and token budget,
 * post-processing, the publishReply effect) runs turn after turn; the edge's publish only
 * serialises the reply. Prints, medians over TURNS turns after a warm-up:
 *   inbound   ai.request sent to the actor → the provider's generate() called (routing, policy,
 *             prompt building, token budget, the attempt and its generate actor);
 *   outbound  generate() returned → the publish called (generate done, post-processing,
 *             prepareReply, publishing, the publishReply effect);
 *   cpu       process CPU per whole turn (both halves, the provider, finishing the turn, GC);
 * and the pieces called alone: the zod parse of the request, the policy check, post-processing.
 *
 *   npx tsx bench/skull-chart.ts [turns=5000]
 */
import { loadavg } from 'node:os';
import { Runtime } from '../core/runtime.js';
import { silentLogger } from '../core/log.js';
import { wireSkull } from '../actors/skull/skullWiring.js';
import { createProviders } from '../actors/llm/providers.js';
import { detectSensitive } from '../prompts/skull/sensitiveTopics.js';
import { postProcess } from '../prompts/skull/postprocess.js';
import type { GenerateRequest, GenerateResult, LlmProvider } from '../machines/llmPort.js';
import type { Outgoing } from '../machines/skullTypes.js';
import type { SkullActorRef } from '../machines/skull.js';
import { parsePayload, textInputSchema } from '../transports/mqtt/skullSchemas.js';
import { testConfig } from '../test/skull/support.js';

const TURNS = Math.max(500, Number(process.argv[2] ?? 5000));
const config = testConfig({ SKULL_DEBOUNCE_MS: '0', SKULL_PROVIDER: 'offline' });
const offline = createProviders(config, { logger: silentLogger() }).resolve('offline');
let sentAt = 0;
let calledAt = 0;
let returnedAt = 0;
const inbound: number[] = [];
const outbound: number[] = [];
const provider: LlmProvider = {
  name: offline.name,
  async generate(req: GenerateRequest): Promise<GenerateResult> {
    calledAt = performance.now();
    const r = await offline.generate(req);
    returnedAt = performance.now();
    return r;
  },
};
let published: (() => void) | undefined;
const publish = async (input: Outgoing): Promise<void> => {
  const at = performance.now();
  inbound.push(calledAt - sentAt);
  outbound.push(at - returnedAt);
  JSON.stringify(input.response);
  if (input.usage) JSON.stringify(input.usage);
  published?.();
};
const wiring = wireSkull({ config, logger: silentLogger(), provider });
wiring.activate();
const runtime = new Runtime();
const actor = runtime.start('skull', 'skull:bench', wiring.machine(publish, silentLogger()), wiring.input('bench')) as SkullActorRef;
const idle = async (): Promise<void> => {
  while (!actor.getSnapshot().matches({ turn: 'idle' })) await new Promise((r) => setImmediate(r));
};
const turn = async (i: number): Promise<void> => {
  const done = new Promise<void>((r) => (published = r));
  sentAt = performance.now();
  actor.send({ type: 'ai.request', text: `Raconte une blague numéro ${i}` });
  await done;
  await idle();
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const us = (ms: number): number => Math.round(ms * 10000) / 10;
const alone = (n: number, f: (i: number) => void): number => {
  for (let i = 0; i < 500; i++) f(i);
  const t = performance.now();
  for (let i = 0; i < n; i++) f(i);
  return us((performance.now() - t) / n);
};

for (let i = 0; i < 500; i++) await turn(i);
inbound.length = 0;
outbound.length = 0;
const cpu0 = process.cpuUsage();
for (let i = 0; i < TURNS; i++) await turn(i);
const cpu = process.cpuUsage(cpu0);
const payload = Buffer.from(JSON.stringify({ text: 'Raconte une blague numéro 12' }));
const result = {
  bench: 'skull-chart',
  turns: TURNS,
  inbound_us: us(median(inbound)),
  outbound_us: us(median(outbound)),
  cpu_per_turn_us: Math.round(((cpu.user + cpu.system) / TURNS) * 10) / 10,
  zod_request_us: alone(TURNS, () => parsePayload(payload, textInputSchema)),
  policy_us: alone(TURNS, (i) => detectSensitive(`Raconte une blague numéro ${i}`)),
  postprocess_us: alone(TURNS, (i) => postProcess(`Pourquoi les squelettes ne se battent-ils jamais ? Ils n’ont pas le cran. Ha ha ! ${i}`, { maxSentences: 3, userText: 'Raconte une blague' })),
  loadavg1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  node: process.version,
};
console.log(JSON.stringify(result));
console.log(`chart on the reply path: ${result.inbound_us} µs in + ${result.outbound_us} µs out; ${result.cpu_per_turn_us} µs CPU per turn; zod ${result.zod_request_us} µs, policy ${result.policy_us} µs, post-processing ${result.postprocess_us} µs (load ${result.loadavg1m})`);
runtime.shutdown();
process.exit(0);
