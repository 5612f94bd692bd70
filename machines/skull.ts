import { and, assign, fromPromise, raise, setup, stateIn, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { breakerMachine, isBreakerOpen, type BreakerRef } from './breaker.js';
import { llmCallMachine, type LlmCallInput, type LlmCallOutput } from './llmCall.js';
import { detectSensitive, REDIRECT_TEXT } from '../actors/skull/policy.js';
import { postProcess } from '../actors/skull/postprocess.js';
import { buildPrompt, contextTurnsFor, trimHistory, type Turn } from '../actors/skull/prompt.js';
import type { TokenCounter } from '../actors/skull/tokens.js';
import {
  APOLOGY_TEXT,
  INTERRUPTED_TEXT,
  type IaConfig,
  type Job,
  type Outgoing,
  type ReplyKind,
  type SkullSettings,
  type SkullStats,
} from '../actors/skull/types.js';

/**
 * One Skull device's conversation (docs/skull.md#what-happens-to-an-input), as two parallel regions:
 *
 * `turn`: idle → responding → publishing → idle (a queued job: publishing → routing → responding)
 *   - a sensitive input (politics, health, money, personal data) goes straight to publishing
 *     with the polite redirect, without calling the model: decided on the input's transition out
 *     of idle, or in `routing` for a queued job.
 *   - responding invokes `llmCall` (retries, backoff, attempt timeout; it consults the device's
 *     `breaker` and uses the fallback model while it is open). A final failure on the primary model
 *     goes to fallingBack (one more llmCall on the fallback model); a final failure there publishes
 *     the apology. A reply empty after post-processing is retried once, then apologised for.
 *   - ai.cancel while responding/fallingBack stops the call (its AbortSignal aborts the HTTP
 *     request) and publishes "(interrompu)"; busy is freed.
 *   - busy: asr.text while a turn runs is ignored (counted); ai.request is queued while fewer than
 *     `maxInFlight` jobs are in flight, else dropped (counted). Never an unbounded queue.
 *   - publishing invokes `publishReply` (QoS 1: waits for the broker's ack), then takes the next
 *     queued job or goes idle; a failed publish or no ack within `publishTimeoutMs` is counted
 *     and the turn ends all the same.
 * `debounce`: quiet ⇄ window. An accepted asr.text opens a `debounceMs` window during which the
 *   same text is a duplicate (one generation for two identical ASR messages).
 *
 * Retained config (`config.ia`, `config.prompt`) is taken in any state and applies to the next
 * turn. No I/O: `llmCall` and `publishReply` are provided at wiring time; time comes from the
 * actor system's clock (delays) and `input.now` (latency figures).
 */

export interface SkullInput {
  deviceId: string;
  settings: SkullSettings;
  /** Text of the default prompt file (used when no retained prompt_system is set). */
  defaultPrompt: string;
  /** Clock for latency figures; the system's clock in tests (SimulatedClock.now). */
  now?: () => number;
  /** Jitter source handed to llmCall. */
  random?: () => number;
  /**
   * Token counter of the prompt budget (`o200k` of actors/skull/tokens.ts in production): given
   * here so that the chart stays free of the tokenizer (js-tiktoken, loaded on demand).
   */
  tokens: TokenCounter;
}

export type SkullEvent =
  | { type: 'asr.text'; text: string }
  | { type: 'ai.request'; text: string }
  | { type: 'ai.cancel' }
  | { type: 'config.ia'; config: IaConfig | null }
  | { type: 'config.prompt'; text: string | null }
  /** Internal: raised when an asr.text is accepted, opens the debounce window. */
  | { type: 'asr.accepted' };

export interface SkullContext {
  deviceId: string;
  settings: SkullSettings;
  defaultPrompt: string;
  retainedPrompt: string | null;
  retainedIa: IaConfig | null;
  now: () => number;
  random: () => number;
  tokens: TokenCounter;
  breaker: BreakerRef;
  history: Turn[];
  queue: Job[];
  current: Job | null;
  /** Last accepted ASR text (normalised), for the debounce. */
  lastAsr: string | null;
  /** Empty replies retried in this turn. */
  emptyRetries: number;
  outgoing: Outgoing | null;
  replyKind: ReplyKind | null;
  /** Latencies of the last model replies, ms (ai/health latency_p50). */
  latencies: number[];
  stats: SkullStats;
}

const LATENCY_WINDOW = 50;

/** ASR texts that differ only in case, spacing or final punctuation are the same utterance. */
export function normaliseAsr(text: string): string {
  return text.toLowerCase().replace(/[\s.!?…,]+/g, ' ').trim();
}

/** Model and knobs of the next turn: retained skull/config/ia over the environment. */
export function effectiveModel(ctx: Pick<SkullContext, 'settings' | 'retainedIa'>): string {
  return ctx.retainedIa?.model ?? ctx.settings.model;
}

function callInput(ctx: SkullContext, model: string, allowFallback: boolean): LlmCallInput {
  const job = ctx.current!;
  const ia = ctx.retainedIa ?? {};
  const built = buildPrompt(
    {
      system: ctx.retainedPrompt ?? ctx.defaultPrompt,
      user: job.text,
      context: trimHistory(ctx.history, contextTurnsFor(model)),
      lang: ia.lang ?? ctx.settings.lang,
    },
    ctx.settings.tokenBudget,
    ctx.tokens,
  );
  const outputReserve = ctx.settings.tokenBudget - built.budget;
  return {
    request: {
      model,
      system: built.system,
      messages: [{ role: 'user', content: built.user }],
      maxTokens: Math.min(ia.max_tokens ?? ctx.settings.maxTokens, ctx.settings.maxTokensCap, outputReserve),
      temperature: ia.temperature ?? ctx.settings.temperature,
      topP: ia.top_p ?? ctx.settings.topP,
      reasoningEffort: 'minimal',
      purpose: 'skull',
      offlineHints: { user: job.text },
    },
    maxRetries: ctx.settings.maxRetries,
    // The small model gets the short timeout (docs/skull.md § Configuration: 6 s fallback, 12 s primary), also while the breaker
    // is open and llmCall swaps models for the whole call.
    attemptTimeoutMs:
      model === ctx.settings.fallbackModel || isBreakerOpen(ctx.breaker.getSnapshot()) ? ctx.settings.fallbackTimeoutMs : ctx.settings.timeoutMs,
    backoffBaseMs: ctx.settings.backoffBaseMs,
    retryAfterCapMs: ctx.settings.retryAfterCapMs,
    ...(allowFallback && model !== ctx.settings.fallbackModel ? { fallbackModel: ctx.settings.fallbackModel } : {}),
    breaker: ctx.breaker,
    random: ctx.random,
  };
}

/**
 * The reply post-processed, once per model result: the `replyUsable`/`replyEmpty` guards and the
 * `prepareReply` action of one transition all need it, and it is ≈ 10 % of a turn's CPU (issue
 * 17). A memo of a pure function of (result, maxSentences, userText): the chart stays pure.
 */
const cleanedMemo = new WeakMap<object, { maxSentences: number; userText: string; text: string }>();
function cleaned(ctx: SkullContext, out: LlmCallOutput): string {
  if (!out.ok) return '';
  const maxSentences = ctx.settings.maxSentences;
  const userText = ctx.current?.text ?? '';
  const hit = cleanedMemo.get(out.result);
  if (hit && hit.maxSentences === maxSentences && hit.userText === userText) return hit.text;
  const text = postProcess(out.result.text, { maxSentences, userText });
  cleanedMemo.set(out.result, { maxSentences, userText, text });
  return text;
}

function reply(ctx: SkullContext, text: string): Outgoing {
  return { response: { ts_ms: ctx.now(), text } };
}

export function latencyP50(latencies: readonly number[]): number | null {
  if (latencies.length === 0) return null;
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

const emptyStats = (): SkullStats => ({
  responses: 0,
  dropped: 0,
  busyIgnored: 0,
  duplicates: 0,
  redirected: 0,
  cancelled: 0,
  apologies: 0,
  fallbacks: 0,
  publishErrors: 0,
});

type Bump = keyof SkullStats;
const bump = (stats: SkullStats, key: Bump): SkullStats => ({ ...stats, [key]: stats[key] + 1 });

type TextPayload = { text: string };
type CallPayload = { output: LlmCallOutput };

const skull = setup({
  types: {
    input: {} as SkullInput,
    context: {} as SkullContext,
    events: {} as SkullEvent,
  },
  actors: {
    llmCall: llmCallMachine,
    breaker: breakerMachine,
    // Provided at wiring time by the MQTT transport (publishes ai/response then ai/usage, QoS 1).
    publishReply: fromPromise<void, Outgoing>(async () => {
      throw new Error('skull: the publishReply actor is not provided');
    }),
  },
  guards: {
    isDuplicateAsr: and([
      stateIn({ debounce: 'window' }),
      ({ context, event }) => event.type === 'asr.text' && normaliseAsr(event.text) === context.lastAsr,
    ]),
    isSensitive: ({ context }) => context.current !== null && detectSensitive(context.current.text) !== null,
    isSensitiveText: (_, { text }: TextPayload) => detectSensitive(text) !== null,
    hasRoom: ({ context }) => context.queue.length + 1 < context.settings.maxInFlight,
    hasQueued: ({ context }) => context.queue.length > 0,
    replyUsable: ({ context }, { output }: CallPayload) => output.ok && cleaned(context, output) !== '',
    replyEmpty: ({ context }, { output }: CallPayload) => output.ok && cleaned(context, output) === '' && context.emptyRetries < 1,
    canFallBack: ({ context }, { output }: CallPayload) => !output.ok && output.model !== context.settings.fallbackModel,
  },
  delays: {
    debounce: ({ context }) => context.settings.debounceMs,
    publishTimeout: ({ context }) => context.settings.publishTimeoutMs,
  },
  actions: {
    acceptAsr: assign(({ context }, { text }: TextPayload) => ({
      current: { source: 'asr' as const, text, at: context.now() },
      lastAsr: normaliseAsr(text),
      emptyRetries: 0,
    })),
    openDebounce: raise({ type: 'asr.accepted' }),
    acceptRequest: assign(({ context }, { text }: TextPayload) => ({
      current: { source: 'request' as const, text, at: context.now() },
      emptyRetries: 0,
    })),
    enqueue: assign({
      queue: ({ context }, { text }: TextPayload) => [...context.queue, { source: 'request' as const, text, at: context.now() }],
    }),
    dequeue: assign(({ context }) => ({ current: context.queue[0] ?? null, queue: context.queue.slice(1), emptyRetries: 0 })),
    countDrop: assign({ stats: ({ context }) => bump(context.stats, 'dropped') }),
    countBusy: assign({ stats: ({ context }) => bump(context.stats, 'busyIgnored') }),
    countDuplicate: assign({ stats: ({ context }) => bump(context.stats, 'duplicates') }),
    countEmptyRetry: assign({ emptyRetries: ({ context }) => context.emptyRetries + 1 }),
    countFallback: assign({ stats: ({ context }) => bump(context.stats, 'fallbacks') }),
    countPublishError: assign({ stats: ({ context }) => bump(context.stats, 'publishErrors') }),
    prepareRedirect: assign(({ context }) => ({
      outgoing: reply(context, postProcess(REDIRECT_TEXT, { maxSentences: 3 })),
      replyKind: 'redirect' as const,
      stats: bump(context.stats, 'redirected'),
    })),
    prepareApology: assign(({ context }) => ({
      outgoing: reply(context, APOLOGY_TEXT),
      replyKind: 'apology' as const,
      stats: bump(context.stats, 'apologies'),
    })),
    prepareInterrupted: assign(({ context }) => ({
      outgoing: reply(context, INTERRUPTED_TEXT),
      replyKind: 'interrupted' as const,
      stats: bump(context.stats, 'cancelled'),
    })),
    prepareReply: assign(({ context }, { output: out }: CallPayload) => {
      if (!out.ok) return {};
      const text = cleaned(context, out);
      const now = context.now();
      const latency = Math.max(0, now - (context.current?.at ?? now));
      const usage = out.result.usage;
      const history = trimHistory(
        [...context.history, { role: 'user' as const, text: context.current?.text ?? '' }, { role: 'assistant' as const, text }],
        2,
      );
      return {
        outgoing: {
          response: { ts_ms: now, text },
          usage: {
            ts_ms: now,
            latency_ms: latency,
            input_tokens: usage.inputTokens,
            output_tokens: usage.outputTokens,
            // The configured id (what ai/capabilities lists and the breaker switches between);
            // the offline provider says so instead of pretending to be that model.
            model: out.result.provider === 'offline' ? out.result.model : out.model,
            cached: usage.cachedTokens > 0,
          },
        },
        replyKind: 'model' as const,
        history,
        latencies: [...context.latencies, latency].slice(-LATENCY_WINDOW),
      };
    }),
    finishTurn: assign(({ context }) => ({
      current: null,
      outgoing: null,
      replyKind: null,
      stats: bump(context.stats, 'responses'),
    })),
    /** Wiring hooks (logs): no-ops in the chart. */
    reportFallback: (_, _params: { model: string }) => {},
    reportApology: () => {},
    applyIa: assign({ retainedIa: ({ event }) => (event.type === 'config.ia' ? event.config : null) }),
    applyPrompt: assign({ retainedPrompt: ({ event }) => (event.type === 'config.prompt' ? event.text : null) }),
  },
});

const text = ({ event }: { event: SkullEvent }): TextPayload => ({ text: (event as Extract<SkullEvent, TextPayload>).text });
const output = ({ event }: { event: { output: LlmCallOutput } }): CallPayload => ({ output: event.output });

/**
 * While a turn runs (responding, falling back, publishing): asr.text is ignored and counted;
 * ai.request is queued while there is room, else dropped and counted.
 */
const busy = skull.createStateConfig({
  on: {
    'asr.text': { actions: 'countBusy' },
    'ai.request': [{ guard: 'hasRoom', actions: { type: 'enqueue', params: text } }, { actions: 'countDrop' }],
  },
}).on;

/** A publish failed or timed out: counted, and the turn ends all the same. */
const publishFailed = [
  { guard: 'hasQueued', target: 'routing', actions: ['countPublishError', 'finishTurn', 'dequeue'] },
  { target: 'idle', actions: ['countPublishError', 'finishTurn'] },
] as const;

export const skullMachine = skull.createMachine({
  id: 'skull',
  type: 'parallel',
  context: ({ input, spawn }) => ({
    deviceId: input.deviceId,
    settings: input.settings,
    defaultPrompt: input.defaultPrompt,
    retainedPrompt: null,
    retainedIa: null,
    now: input.now ?? Date.now,
    random: input.random ?? Math.random,
    tokens: input.tokens,
    breaker: spawn('breaker', { id: 'breaker', input: input.settings.breaker }),
    history: [],
    queue: [],
    current: null,
    lastAsr: null,
    emptyRetries: 0,
    outgoing: null,
    replyKind: null,
    latencies: [],
    stats: emptyStats(),
  }),
  on: {
    'config.ia': { actions: 'applyIa' },
    'config.prompt': { actions: 'applyPrompt' },
  },
  states: {
    turn: {
      description: 'One reply at a time: route, ask the model, publish.',
      initial: 'idle',
      states: {
        idle: {
          description: 'No turn runs: the next accepted input starts one.',
          on: {
            // The input is routed here, as `routing` does for a queued job: one eventless step
            // less on the common path (issue 17).
            'asr.text': [
              { guard: 'isDuplicateAsr', actions: 'countDuplicate' },
              { guard: { type: 'isSensitiveText', params: text }, target: 'publishing', actions: [{ type: 'acceptAsr', params: text }, 'openDebounce', 'prepareRedirect'] },
              { target: 'responding', actions: [{ type: 'acceptAsr', params: text }, 'openDebounce'] },
            ],
            'ai.request': [
              { guard: { type: 'isSensitiveText', params: text }, target: 'publishing', actions: [{ type: 'acceptRequest', params: text }, 'prepareRedirect'] },
              { target: 'responding', actions: { type: 'acceptRequest', params: text } },
            ],
          },
        },
        routing: {
          description: 'A queued job: a sensitive one gets the redirect without a model call; the others go to the model.',
          always: [{ guard: 'isSensitive', target: 'publishing', actions: 'prepareRedirect' }, { target: 'responding' }],
        },
        responding: {
          description: 'The model call (llmCall: retries, breaker); an empty reply is asked again once.',
          invoke: {
            id: 'llm',
            src: 'llmCall',
            input: ({ context }) => callInput(context, effectiveModel(context), true),
            onDone: [
              { guard: { type: 'replyUsable', params: output }, target: 'publishing', actions: { type: 'prepareReply', params: output } },
              { guard: { type: 'replyEmpty', params: output }, target: 'responding', reenter: true, actions: 'countEmptyRetry' },
              {
                guard: { type: 'canFallBack', params: output },
                target: 'fallingBack',
                actions: ['countFallback', { type: 'reportFallback', params: ({ context }) => ({ model: context.settings.fallbackModel }) }],
              },
              { target: 'publishing', actions: ['prepareApology', 'reportApology'] },
            ],
          },
          on: { ...busy, 'ai.cancel': { target: 'publishing', actions: 'prepareInterrupted' } },
        },
        fallingBack: {
          description: 'The primary model failed: one more call on the fallback model, else the apology.',
          invoke: {
            id: 'llmFallback',
            src: 'llmCall',
            input: ({ context }) => callInput(context, context.settings.fallbackModel, false),
            onDone: [
              { guard: { type: 'replyUsable', params: output }, target: 'publishing', actions: { type: 'prepareReply', params: output } },
              { target: 'publishing', actions: ['prepareApology', 'reportApology'] },
            ],
          },
          on: { ...busy, 'ai.cancel': { target: 'publishing', actions: 'prepareInterrupted' } },
        },
        publishing: {
          description: 'Publishes the reply (QoS 1, waits for the ack), then the next queued job or idle.',
          invoke: {
            id: 'publish',
            src: 'publishReply',
            input: ({ context }) => ({ ...(context.outgoing ?? reply(context, APOLOGY_TEXT)), deviceId: context.deviceId }),
            onDone: [
              { guard: 'hasQueued', target: 'routing', actions: ['finishTurn', 'dequeue'] },
              { target: 'idle', actions: 'finishTurn' },
            ],
            onError: [...publishFailed],
          },
          // A broker that never acknowledges must not hold the device busy forever.
          after: { publishTimeout: [...publishFailed] },
          on: busy,
        },
      },
    },
    debounce: {
      description: 'An accepted ASR text opens a window in which the same text is a duplicate.',
      initial: 'quiet',
      states: {
        quiet: { description: 'No window open.', on: { 'asr.accepted': 'window' } },
        window: {
          description: 'The last accepted ASR text is a duplicate until the window closes.',
          after: { debounce: 'quiet' },
          on: { 'asr.accepted': { target: 'window', reenter: true } },
        },
      },
    },
  },
});

export type SkullActorRef = ActorRefFrom<typeof skullMachine>;
export type SkullSnapshot = SnapshotFrom<typeof skullMachine>;

/** Jobs in flight: the one running (if any) plus those queued. */
export function inFlight(snapshot: SkullSnapshot): number {
  return snapshot.context.queue.length + (snapshot.matches({ turn: 'idle' }) ? 0 : 1);
}
