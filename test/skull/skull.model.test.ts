import { describe, expect, it } from 'vitest';
import type { AnyMachineSnapshot, EventObject, InspectionEvent } from 'xstate';
import { Runtime } from '../../core/runtime.js';
import { silentLogger } from '../../core/log.js';
import type { SkullContext, SkullInput } from '../../machines/skull.js';
import { o200k } from '../../actors/skull/tokens.js';
import { skullSettings } from '../../actors/skull/settings.js';
import { startWiredSkull } from '../../actors/skull/surface.js';
import { wireSkull } from '../../actors/skull/skullWiring.js';
import { LlmError, type GenerateRequest, type GenerateResult, type LlmProvider } from '../../machines/llmPort.js';
import type { Outgoing } from '../../machines/skullTypes.js';
import { runModel } from '../harness/index.js';
import { DEFAULT_PROMPT, expectSkull, SENSITIVE_SAMPLE, type GenerateStep, type PublishStep, type SkullWorld } from './skullOracle.js';
import { embeddedBroker, Listener, memoryLogger, testConfig, uniquePrefix } from './support.js';

/**
 * Model-based test of the `skull` chart: paths generated from the production machine
 * (xstate/graph, via test/harness) replayed against the real actor behind the real MQTT transport
 * on a real broker (embedded aedes). Plain events travel as MQTT messages through the transport's
 * zod validation; the provider under the wiring's real `generate` effect is controllable (a step
 * `generate.done` / `generate.failed` is the provider answering the attempt in flight), and so is the edge's publish under
 * the wiring's real `publishReply` effect (a step `publish.done` / `publish.failed` is the broker acking or
 * failing the reply in flight); time is a SimulatedClock.
 * Coverage is read from the actor's inspection stream and written to coverage/model/skull.json.
 */
const usage = { inputTokens: 12, outputTokens: 7, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 5 };
const cachedUsage = { ...usage, cachedTokens: 1 };
// The provider answers with a dated id; the configured id is what ai/usage names.
const ok = (text: string): GenerateResult => ({ text, model: 'gpt-5-2025-08-07', provider: 'openai', usage });
const offlineOk: GenerateResult = { text: 'Secours.', model: 'offline', provider: 'offline', usage: cachedUsage };
const serverError = new LlmError('server', 'HTTP 503', { provider: 'openai', status: 503 });
const authError = new LlmError('auth', 'HTTP 401', { provider: 'openai', status: 401 });

/** Where each plain event goes on the bus, and its payload. */
function toMqtt(event: EventObject): { topic: string; payload: string } {
  const e = event as EventObject & { text?: string | null; config?: unknown };
  switch (event.type) {
    case 'asr.text':
      return { topic: 'asr/text', payload: JSON.stringify({ ts_ms: 0, text: e.text }) };
    case 'ai.request':
      return { topic: 'ai/request', payload: JSON.stringify({ ts_ms: 0, text: e.text }) };
    case 'ai.cancel':
      return { topic: 'ai/cancel', payload: '' };
    case 'config.ia':
      return { topic: 'skull/config/ia', payload: e.config === null ? '' : JSON.stringify(e.config) };
    case 'config.prompt':
      return { topic: 'skull/config/prompt_system', payload: e.text === null ? '' : JSON.stringify({ text: e.text }) };
    default:
      throw new Error(`no MQTT route for ${event.type}`);
  }
}

const req = { type: 'ai.request', text: 'question' };
const sensitiveReq = { type: 'ai.request', text: SENSITIVE_SAMPLE };
const asr = { type: 'asr.text', text: 'bonjour' };
const gen = (result: GenerateResult) => ({ type: 'generate.done', result });
const genError = (error: LlmError) => ({ type: 'generate.failed', error });
const backoff = { type: 'xstate.after.backoff.skull.turn.responding.backingOff' };
const attemptTimeout = { type: 'xstate.after.attemptTimeout.skull.turn.responding.attempting' };
const published = { type: 'publish.done' };
const cancelled = [{ type: 'ai.cancel' }, published];
/** The transient failures of one round: the first attempt and its `maxRetries` (3) retries. */
const failedRound = [genError(serverError), backoff, genError(serverError), backoff, attemptTimeout, backoff, genError(serverError)];

function abstract(s: AnyMachineSnapshot): unknown {
  const c = s.context as SkullContext;
  return [s.value, c.queue.length, c.emptyRetries, c.call.retries, c.call.fallback];
}

/**
 * The provider, each call parked until a step answers it (the real `generate` effect calls it and
 * answers the chart). Like a provider that does not hear its AbortSignal: an attempt given up can
 * still answer, late (the chart must ignore it).
 */
class ParkedProvider implements LlmProvider {
  readonly name = 'offline' as const;
  readonly calls: Array<{ request: GenerateRequest; signal: AbortSignal; settled: boolean; resolve: (r: GenerateResult) => void; reject: (e: unknown) => void }> = [];
  reset(): void {
    this.calls.length = 0;
  }
  generate(request: GenerateRequest): Promise<GenerateResult> {
    return new Promise((resolve, reject) => {
      this.calls.push({ request, signal: request.signal!, settled: false, resolve, reject });
    });
  }
  /** Answers the attempt in flight, or with `late` the latest one given up and still unanswered. */
  answer(step: GenerateStep & { result?: GenerateResult; error?: unknown }): void {
    const call = this.calls.findLast((c) => !c.settled && (step.late === true) === c.signal.aborted);
    if (!call) throw new Error(`${step.type}: no ${step.late ? 'abandoned ' : ''}provider call is waiting`);
    call.settled = true;
    if (step.type === 'generate.done') call.resolve(step.result!);
    else call.reject(step.error);
  }
}

/** The edge's publish, parked until a step acks or fails it (the real publishReply effect calls it). */
class ParkedPublishes {
  readonly published: Outgoing[] = [];
  private parked: Array<{ resolve: () => void; reject: (e: Error) => void; settled: boolean }> = [];
  reset(): void {
    this.published.length = 0;
    this.parked = [];
  }
  readonly publish = (outgoing: Outgoing): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      this.published.push(outgoing);
      this.parked.push({ resolve, reject, settled: false });
    });
  /** Answers the reply in flight (the latest), or with `late` an earlier one still unanswered. */
  answer(step: PublishStep): void {
    const open = this.parked.filter((p) => !p.settled);
    const p = step.late ? open.at(-2) : open.at(-1);
    if (!p) throw new Error(`${step.type}: no publish ${step.late ? 'of an earlier turn ' : ''}is waiting`);
    p.settled = true;
    if (step.type === 'publish.done') p.resolve();
    else p.reject(new Error('mqtt connection lost before the ack'));
  }
}

describe('skull model', () => {
  it('replays generated paths through MQTT and covers every state and transition', async () => {
    const broker = await embeddedBroker();
    const config = testConfig();
    // Backoffs of 1.1 s and more: longer than the debounce window (see turnTimer below).
    const settings = { ...skullSettings(config), backoffBaseMs: 1000, breaker: { failureThreshold: 100, windowMs: 60_000, cooldownMs: 30_000 } };
    const input = (): SkullInput => ({ deviceId: 'model', settings, defaultPrompt: DEFAULT_PROMPT, random: () => 0, tokens: o200k });
    // Primary = fallback: a final failure cannot fall back and goes straight to the apology.
    const nanoOnly = (): SkullInput => ({ ...input(), settings: { ...settings, model: settings.fallbackModel } });
    // The breaker opens after 2 failures and stays open for the rest of a path (the breaker's own
    // timing is its model test's: test/model/breaker.model.test.ts).
    const breakerTrips = (): SkullInput => ({ ...input(), settings: { ...settings, breaker: { failureThreshold: 2, windowMs: 3_600_000, cooldownMs: 3_600_000 } } });
    const pub = await Listener.open(broker.url, []);
    // The chart as the composition root provides it (its retry, fallback and apology log lines
    // included, the real generate effects over a provider this test answers, and the real
    // publishReply effect over a publish this test answers).
    const { logger, lines } = memoryLogger();
    const publishes = new ParkedPublishes();
    const provider = new ParkedProvider();
    const machine = wireSkull({ config, logger, provider }).machine(publishes.publish, logger);
    // Time only moves forward: the debounce window (300 ms) is shorter than the turn's timers
    // (backoff ≥ 1.1 s here, attempt 6 or 12 s, publish 10 s), so while a window is open a model
    // must not fire a turn timer before the window's.
    const turnTimer = (s: AnyMachineSnapshot) => (s.matches({ debounce: 'window' }) ? [] : [{}]);
    try {
      const { failures, paths, coverage } = await runModel({
        name: 'skull',
        machine,
        controlled: [],
        simplePaths: false,
        variants: [
          { name: 'mini primary, nano fallback', input },
          { name: 'nano only', input: nanoOnly },
          // The traversal does not run the spawned breaker: its scenario only.
          { name: 'breaker trips after 2 failures', input: breakerTrips, scenariosOnly: true },
        ],
        events: {
          'asr.text': [{ text: 'bonjour' }, { text: SENSITIVE_SAMPLE }],
          'ai.request': [{ text: 'question' }],
          'ai.cancel': [{}],
          'config.ia': [{ config: null }, { config: { model: 'gpt-5-nano' } }],
          // Raised by the chart itself, never sent from outside.
          'asr.accepted': [],
          'xstate.after.publishTimeout.skull.turn.publishing': turnTimer,
          'xstate.after.attemptTimeout.skull.turn.responding.attempting': turnTimer,
          'xstate.after.backoff.skull.turn.responding.backingOff': turnTimer,
          'config.prompt': [{ text: 'Tu es poli.' }],
          // The answer names the attempt (the model needs it for its guard).
          'generate.done': (s: AnyMachineSnapshot) => [ok('Bonjour !'), ok('```\n```'), offlineOk].map((result) => ({ attempt: (s.context as SkullContext).call.seq, result })),
          'generate.failed': (s: AnyMachineSnapshot) => [serverError, authError].map((error) => ({ attempt: (s.context as SkullContext).call.seq, error })),
          // The answer names the turn (the model needs it for its guard).
          'publish.done': (s: AnyMachineSnapshot) => [{ turn: (s.context as SkullContext).stats.responses }],
          'publish.failed': (s: AnyMachineSnapshot) => [{ turn: (s.context as SkullContext).stats.responses, error: 'mqtt connection lost before the ack' }],
        },
        // Coarse vertices keep the graph small (counters and texts are left out); what is compared
        // after each step is exactly what identifies a vertex: state, queue length, empty retries.
        // Sequences of docs/skull.md that a chart forgetting a rule would never generate itself.
        scenarios: [
          { name: 'an empty reply is asked again once, then apologised for', variant: 'mini primary, nano fallback', events: [req, gen(ok('```\n```')), gen(ok('```\n```')), published] },
          {
            name: 'retained prompt and model apply to the next turn, and clearing them restores the defaults',
            variant: 'mini primary, nano fallback',
            events: [
              { type: 'config.prompt', text: 'Tu es poli.' },
              { type: 'config.ia', config: { model: 'gpt-5-nano' } },
              req,
              genError(authError),
              published,
              { type: 'config.ia', config: null },
              req,
              gen(ok('Bonjour !')),
              published,
            ],
          },
          {
            name: 'a late answer of a timed-out or cancelled attempt changes nothing',
            variant: 'mini primary, nano fallback',
            events: [
              // The first attempt times out and answers while the retry's attempt runs.
              req,
              attemptTimeout,
              backoff,
              { type: 'generate.done', late: true, result: ok('Trop tard.') },
              // The retry's attempt is cancelled and fails while the "(interrompu)" is published.
              { type: 'ai.cancel' },
              { type: 'generate.failed', late: true, error: serverError },
              published,
              req,
              gen(ok('Bonjour !')),
              published,
            ],
          },
          { name: 'a failed publish ends the turn; the queued request goes on', variant: 'mini primary, nano fallback', events: [req, req, gen(ok('Bonjour !')), { type: 'publish.failed' }, gen(ok('Bonjour !')), published] },
          { name: 'an unacknowledged publish times out and frees the device', variant: 'mini primary, nano fallback', events: [req, gen(ok('Bonjour !')), { type: 'xstate.after.publishTimeout.skull.turn.publishing' }, req, gen(ok('Bonjour !')), published] },
          {
            name: 'a late ack of a timed-out reply does not end the next turn',
            variant: 'mini primary, nano fallback',
            events: [req, gen(ok('Bonjour !')), { type: 'xstate.after.publishTimeout.skull.turn.publishing' }, req, gen(ok('Bonjour !')), { type: 'publish.done', late: true }, req, published, gen(ok('Bonjour !')), published],
          },
          { name: 'the same ASR text is one generation within the window, a new one after it', variant: 'mini primary, nano fallback', events: [asr, gen(ok('Bonjour !')), published, asr, { type: 'xstate.after.debounce.skull.debounce.window' }, asr, gen(ok('Bonjour !')), published] },
          {
            // Routed on its way out of idle, or in `routing` once it was queued behind another turn.
            name: 'a sensitive request gets the redirect without a model call, at once or when its queued turn comes',
            variant: 'mini primary, nano fallback',
            events: [sensitiveReq, published, req, sensitiveReq, gen(ok('Bonjour !')), published, published],
          },
          { name: 'three transient failures are retried; a fourth moves to the fallback round, whose retry answers', variant: 'mini primary, nano fallback', events: [req, ...failedRound.slice(0, 6), gen(ok('Bonjour !')), published, req, ...failedRound, genError(serverError), backoff, gen(offlineOk), published] },
          { name: 'a failed primary falls back once, then apologises', variant: 'mini primary, nano fallback', events: [req, ...failedRound, ...failedRound, published, req, ...cancelled] },
          { name: 'a non-transient error is not retried: straight to the fallback round', variant: 'mini primary, nano fallback', events: [req, genError(authError), genError(authError), published] },
          // The backoff's timer is cancelled with the turn (the harness could not fire it: it would fail).
          { name: 'cancelled during a backoff: no further attempt', variant: 'mini primary, nano fallback', events: [req, genError(serverError), { type: 'ai.cancel' }, published, req, gen(ok('Bonjour !')), published] },
          {
            // Two failures open the breaker: the retry of the same round already goes to nano, with
            // nano's short timeout, and so does the next turn; a failure on nano cannot fall back.
            name: 'the breaker opens mid-call: the remaining attempts and the next turn use the fallback model',
            variant: 'breaker trips after 2 failures',
            events: [req, genError(serverError), backoff, attemptTimeout, backoff, gen(ok('Bonjour !')), published, req, genError(authError), published, req, ...cancelled],
          },
          // A success forgets the failure counted before it, so one failure after it leaves the
          // breaker closed: the attempt that follows stays on the primary model. Whatever the
          // success was: a usable reply, an empty one asked again, an empty one apologised for.
          {
            name: 'a usable reply forgets the failure before it: the breaker stays closed',
            variant: 'breaker trips after 2 failures',
            events: [req, genError(serverError), backoff, gen(ok('Bonjour !')), published, req, genError(serverError), backoff, gen(ok('Bonjour !')), published],
          },
          {
            name: 'an empty reply forgets the failure before it: the breaker stays closed',
            variant: 'breaker trips after 2 failures',
            events: [req, genError(serverError), backoff, gen(ok('```\n```')), genError(serverError), backoff, gen(ok('Bonjour !')), published],
          },
          {
            name: 'an empty reply apologised for forgets the failure before it: the breaker stays closed',
            variant: 'breaker trips after 2 failures',
            events: [req, gen(ok('```\n```')), genError(serverError), backoff, gen(ok('```\n```')), published, req, genError(serverError), backoff, gen(ok('Bonjour !')), published],
          },
        ],
        serializeState: (s) => JSON.stringify(abstract(s)),
        project: abstract,
        oracle: expectSkull,
        start: async ({ machine, input: inp, clock, inspect }) => {
          const prefix = uniquePrefix();
          const runtime = new Runtime({ clock });
          runtime.onInspect(inspect);
          const svc = await startWiredSkull({
            config: testConfig({ SKULL_TOPIC_PREFIX: prefix }),
            logger: silentLogger(),
            runtime,
            provider,
            mqttUrl: broker.url,
            healthIntervalMs: 0,
            now: () => clock.now(),
            machine,
            input: inp,
          });
          const from = lines.length;
          publishes.reset();
          provider.reset();
          const world: SkullWorld = {
            health: () => svc.health(),
            logs: () => lines.slice(from),
            published: () => publishes.published,
            calls: () => provider.calls,
            attemptTimeouts: () =>
              Object.values(svc.actor.system.getSnapshot()._scheduledEvents)
                .filter((e) => e.target === svc.actor && e.event.type.startsWith('xstate.after.attemptTimeout'))
                .map((e) => e.delay),
          };
          // Resolves when the actor has an event of this type. (The parked provider answers only
          // when a step says so: no other generate.* event can come first.)
          const received = (type: string) =>
            new Promise<void>((resolve) => {
              const off = runtime.onInspect((ev: InspectionEvent) => {
                if (ev.type === '@xstate.event' && ev.actorRef === svc.actor && ev.event.type === type) {
                  off();
                  resolve();
                }
              });
            });
          return {
            world,
            actor: svc.actor,
            stop: async () => {
              await svc.stop();
              runtime.shutdown();
            },
            // The provider's answer goes through the generate effect, the broker's answer to the
            // reply in flight through the publishReply effect; plain events go through the broker
            // and the transport.
            send: async (event: EventObject) => {
              const delivered = received(event.type);
              if (event.type === 'generate.done' || event.type === 'generate.failed') provider.answer(event as GenerateStep & { result?: GenerateResult; error?: unknown });
              else if (event.type === 'publish.done' || event.type === 'publish.failed') publishes.answer(event as PublishStep);
              else {
                const { topic, payload } = toMqtt(event);
                await pub.publish(`${prefix}/${topic}`, payload);
              }
              await delivered;
            },
          };
        },
      });
      expect(failures).toEqual([]);
      expect(paths.length).toBeGreaterThan(30);
      expect(coverage.states.uncovered).toEqual([]);
      expect(coverage.transitions.uncovered).toEqual([]);
      expect(coverage.oracleChecks).toBeGreaterThan(paths.length * 10);
    } finally {
      await pub.close();
      await broker.close();
    }
  }, 180_000);
});
