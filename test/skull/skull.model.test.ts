import { describe, expect, it } from 'vitest';
import { fromPromise, type AnyMachineSnapshot, type EventObject, type InspectionEvent } from 'xstate';
import { Runtime } from '../../core/runtime.js';
import { silentLogger } from '../../core/log.js';
import { effectiveModel, type SkullContext, type SkullInput } from '../../machines/skull.js';
import { o200k } from '../../actors/skull/tokens.js';
import { skullSettings } from '../../actors/skull/settings.js';
import { startWiredSkull } from '../../actors/skull/surface.js';
import { wireSkull, type PublishReplyLogic } from '../../actors/skull/skullWiring.js';
import type { LlmCallOutput } from '../../machines/llmCall.js';
import { runModel } from '../harness/index.js';
import { DEFAULT_PROMPT, expectSkull, SENSITIVE_SAMPLE, type SkullWorld } from './skullOracle.js';
import { embeddedBroker, Listener, memoryLogger, ScriptedProvider, testConfig, uniquePrefix } from './support.js';

/**
 * Model-based test of the `skull` chart: paths generated from the production machine
 * (xstate/graph, via test/harness) replayed against the real actor behind the real MQTT transport
 * on a real broker (embedded aedes). Plain events travel as MQTT messages through the transport's
 * zod validation; `llmCall` and `publishReply` are controllable; time is a SimulatedClock.
 * Coverage is read from the actor's inspection stream and written to coverage/model/skull.json.
 */
const usage = { inputTokens: 12, outputTokens: 7, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 5 };
const cachedUsage = { ...usage, cachedTokens: 1 };
// The provider answers with a dated id; the configured id is what ai/usage names.
const ok = (text: string, model: string): LlmCallOutput => ({ ok: true, result: { text, model: `${model}-2025-08-07`, provider: 'openai', usage }, attempts: 1, model });
const failed = (model: string): LlmCallOutput => ({ ok: false, error: { kind: 'server', message: 'HTTP 503', status: 503 }, attempts: 4, model });

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
const llm = (output: LlmCallOutput) => ({ type: 'xstate.done.actor.llm', output });
const published = { type: 'xstate.done.actor.publish', output: undefined };
const cancelled = [{ type: 'ai.cancel' }, published];

function abstract(s: AnyMachineSnapshot): unknown {
  const c = s.context as SkullContext;
  return [s.value, c.queue.length, c.emptyRetries];
}

describe('skull model', () => {
  it('replays generated paths through MQTT and covers every state and transition', async () => {
    const broker = await embeddedBroker();
    const config = testConfig();
    const settings = { ...skullSettings(config), breaker: { failureThreshold: 100, windowMs: 60_000, cooldownMs: 30_000 } };
    const input = (): SkullInput => ({ deviceId: 'model', settings, defaultPrompt: DEFAULT_PROMPT, random: () => 0, tokens: o200k });
    // Primary = fallback: a final failure cannot fall back and goes straight to the apology.
    const nanoOnly = (): SkullInput => ({ ...input(), settings: { ...settings, model: settings.fallbackModel } });
    const pub = await Listener.open(broker.url, []);
    // The chart as the composition root provides it (its fallback and apology log lines included);
    // the harness then makes its llmCall and publishReply controllable.
    const { logger, lines } = memoryLogger();
    const unusedPublish: PublishReplyLogic = fromPromise(() => Promise.reject(new Error('the harness replaces publishReply')));
    const machine = wireSkull({ config, logger, provider: new ScriptedProvider() }).machine(unusedPublish, logger);
    try {
      const { failures, paths, coverage } = await runModel({
        name: 'skull',
        machine,
        controlled: ['llmCall', 'publishReply'],
        simplePaths: false,
        variants: [
          { name: 'mini primary, nano fallback', input },
          { name: 'nano only', input: nanoOnly },
        ],
        events: {
          'asr.text': [{ text: 'bonjour' }, { text: SENSITIVE_SAMPLE }],
          'ai.request': [{ text: 'question' }],
          'ai.cancel': [{}],
          'config.ia': [{ config: null }, { config: { model: 'gpt-5-nano' } }],
          // Raised by the chart itself, never sent from outside.
          'asr.accepted': [],
          // Time only moves forward: a window opens in idle, before publishing starts, and the
          // debounce (300 ms) is shorter than the publish timeout (10 s), so while both are pending
          // the window closes first. The model must not fire the later timer before the earlier.
          'xstate.after.publishTimeout.skull.turn.publishing': (s: AnyMachineSnapshot) => (s.matches({ debounce: 'window' }) ? [] : [{}]),
          'config.prompt': [{ text: 'Tu es poli.' }],
          'xstate.done.actor.llm': (s: AnyMachineSnapshot) => {
            const model = effectiveModel(s.context as SkullContext);
            return [{ output: ok('Bonjour !', model) }, { output: ok('```\n```', model) }, { output: failed(model) }];
          },
          'xstate.done.actor.llmFallback': [{ output: { ...ok('Secours.', 'gpt-5-nano'), result: { text: 'Secours.', model: 'offline', provider: 'offline', usage: cachedUsage } } }, { output: failed('gpt-5-nano') }],
          'xstate.done.actor.publish': [{ output: undefined }],
          'xstate.error.actor.publish': [{ error: new Error('mqtt connection lost before the ack') }],
        },
        // Coarse vertices keep the graph small (counters and texts are left out); what is compared
        // after each step is exactly what identifies a vertex: state, queue length, empty retries.
        // Sequences of docs/skull.md that a chart forgetting a rule would never generate itself.
        scenarios: [
          { name: 'an empty reply is asked again once, then apologised for', variant: 'mini primary, nano fallback', events: [req, llm(ok('```\n```', 'gpt-5-mini')), llm(ok('```\n```', 'gpt-5-mini')), published] },
          {
            name: 'retained prompt and model apply to the next turn, and clearing them restores the defaults',
            variant: 'mini primary, nano fallback',
            events: [
              { type: 'config.prompt', text: 'Tu es poli.' },
              { type: 'config.ia', config: { model: 'gpt-5-nano' } },
              req,
              llm(failed('gpt-5-nano')),
              published,
              { type: 'config.ia', config: null },
              req,
              llm(ok('Bonjour !', 'gpt-5-mini')),
              published,
            ],
          },
          { name: 'a failed publish ends the turn; the queued request goes on', variant: 'mini primary, nano fallback', events: [req, req, llm(ok('Bonjour !', 'gpt-5-mini')), { type: 'xstate.error.actor.publish', error: new Error('lost') }, llm(ok('Bonjour !', 'gpt-5-mini')), published] },
          { name: 'an unacknowledged publish times out and frees the device', variant: 'mini primary, nano fallback', events: [req, llm(ok('Bonjour !', 'gpt-5-mini')), { type: 'xstate.after.publishTimeout.skull.turn.publishing' }, req, llm(ok('Bonjour !', 'gpt-5-mini')), published] },
          { name: 'the same ASR text is one generation within the window, a new one after it', variant: 'mini primary, nano fallback', events: [asr, llm(ok('Bonjour !', 'gpt-5-mini')), published, asr, { type: 'xstate.after.debounce.skull.debounce.window' }, asr, llm(ok('Bonjour !', 'gpt-5-mini')), published] },
          {
            // Routed on its way out of idle, or in `routing` once it was queued behind another turn.
            name: 'a sensitive request gets the redirect without a model call, at once or when its queued turn comes',
            variant: 'mini primary, nano fallback',
            events: [sensitiveReq, published, req, sensitiveReq, llm(ok('Bonjour !', 'gpt-5-mini')), published, published],
          },
          { name: 'a failed primary falls back once, then apologises', variant: 'mini primary, nano fallback', events: [req, llm(failed('gpt-5-mini')), { type: 'xstate.done.actor.llmFallback', output: failed('gpt-5-nano') }, published, req, ...cancelled] },
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
            provider: new ScriptedProvider(),
            mqttUrl: broker.url,
            healthIntervalMs: 0,
            now: () => clock.now(),
            machine,
            input: inp,
          });
          const from = lines.length;
          const world: SkullWorld = { health: () => svc.health(), logs: () => lines.slice(from) };
          return {
            world,
            actor: svc.actor,
            stop: async () => {
              await svc.stop();
              runtime.shutdown();
            },
            // Through the broker and the transport; resolves when the actor has the event.
            send: async (event: EventObject) => {
              const delivered = new Promise<void>((resolve) => {
                const off = runtime.onInspect((ev: InspectionEvent) => {
                  if (ev.type === '@xstate.event' && ev.actorRef === svc.actor && ev.event.type === event.type) {
                    off();
                    resolve();
                  }
                });
              });
              const { topic, payload } = toMqtt(event);
              await pub.publish(`${prefix}/${topic}`, payload);
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
