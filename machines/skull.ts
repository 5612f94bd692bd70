import { and, assign, raise, setup, stateIn, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { GenerateResult } from './llmPort.js';
import { breakerMachine, isBreakerOpen, type BreakerRef } from './breaker.js';
import { attemptFailed, attemptTimedOut, llmPolicy, noAttempt, type LlmAttempt, type LlmCallRequest, type RetryReport } from './llmPolicy.js';
import { detectSensitive, REDIRECT_TEXT } from '../prompts/skull/sensitiveTopics.js';
import { postProcess } from '../prompts/skull/postprocess.js';
import { buildPrompt, contextTurnsFor, trimHistory, type Turn } from '../prompts/skull/contextPrompt.js';
import type { TokenCounter } from '../prompts/skull/contextPrompt.js';
import {
  APOLOGY_TEXT,
  INTERRUPTED_TEXT,
  type IaConfig,
  type Job,
  type Outgoing,
  type ReplyKind,
  type SkullSettings,
  type SkullStats,
} from './skullTypes.js';

/**
 * One Skull device's conversation (docs/skull.md#what-happens-to-an-input), as two parallel regions:
 *
 * `turn`: idle → responding → publishing → idle (a queued job: publishing → routing → responding)
 *   - a sensitive input (politics, health, money, personal data) goes straight to publishing
 *     with the polite redirect, without calling the model: decided on the input's transition out
 *     of idle, or in `routing` for a queued job.
 *   - responding is the model call, as steps of this chart with the policy every model call uses
 *     (machines/llmPolicy.ts: its states, guards, delays and actions, over `context.call`):
 *     attempting → (decidingRetry → backingOff → attempting)*. `attempting` starts the provider
 *     call through the named effect `generate` (answered by `generate.done` / `generate.failed`
 *     naming the attempt; no actor per attempt) and arms `attemptTimeout` (the short one on the
 *     fallback model); transient errors are retried `maxRetries` times after a backoff; every
 *     failed attempt is told to the device's `breaker`, and while it is open the attempts use the
 *     fallback model. A final failure on the primary model starts one more round on the fallback
 *     model (retries again); a final failure there publishes the apology. A reply empty after
 *     post-processing is asked again once (a new round on the primary model), then apologised for.
 *   - ai.cancel while responding stops the call (leaving `attempting` runs the named effect
 *     `abortGenerate`, which aborts the HTTP request) and publishes "(interrompu)"; busy is freed.
 *     An answer about an attempt that is no longer the current one (timed out, cancelled) is ignored.
 *   - busy: asr.text while a turn runs is ignored (counted); ai.request is queued while fewer than
 *     `maxInFlight` jobs are in flight, else dropped (counted). Never an unbounded queue.
 *   - publishing hands the reply to the named effect `publishReply` (QoS 1: the wiring sends the
 *     chart `publish.done` once the broker acked, `publish.failed` if the publish failed), then takes the
 *     next queued job or goes idle; a failed publish or no ack within `publishTimeoutMs` is counted
 *     and the turn ends all the same. Each publish is numbered: a late answer to an earlier,
 *     timed-out one is ignored.
 * `debounce`: quiet ⇄ window. An accepted asr.text opens a `debounceMs` window during which the
 *   same text is a duplicate (one generation for two identical ASR messages).
 *
 * Retained config (`config.ia`, `config.prompt`) is taken in any state and applies to the next
 * turn. No I/O: `generate`, `abortGenerate` and `publishReply` are provided at wiring time; time comes from the
 * actor system's clock (delays) and `input.now` (latency figures).
 */

export interface SkullInput {
  deviceId: string;
  settings: SkullSettings;
  /** Text of the default prompt file (used when no retained prompt_system is set). */
  defaultPrompt: string;
  /** Clock for latency figures; the system's clock in tests (SimulatedClock.now). */
  now?: () => number;
  /** Jitter source of the retries' backoff. */
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
  | { type: 'asr.accepted' }
  /** From the wiring of `publishReply`: the reply of turn `turn` was acked by the broker, or its publish failed. */
  | { type: 'publish.done'; turn: number }
  | { type: 'publish.failed'; turn: number; error: string }
  /** From the wiring of `generate`: the provider's answer to attempt `attempt` (see GenerateCommand). */
  | { type: 'generate.done'; attempt: number; result: GenerateResult }
  | { type: 'generate.failed'; attempt: number; error: unknown };

/**
 * What the `generate` effect gets: one provider call, numbered so that its answer names it. The
 * number counts the device's attempts over its life (`SkullCall.seq`): an attempt that timed out
 * or was cancelled can answer after the next one started, in the same turn or a later one.
 */
export interface GenerateCommand {
  attempt: number;
  request: LlmCallRequest;
}

/** What `publishReply` gets: the reply of one turn, numbered so that its answer names it. */
export interface PublishCommand {
  /** The turn's number: turns ended before it (`stats.responses`). */
  turn: number;
  outgoing: Outgoing;
}

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
  /** The model call of the turn (reset by each round: the primary, an empty retry, the fallback). */
  call: SkullCall;
  outgoing: Outgoing | null;
  replyKind: ReplyKind | null;
  /** Latencies of the last model replies, ms (ai/health latency_p50). */
  latencies: number[];
  stats: SkullStats;
}

/**
 * One round of the model call: the request built once for the round, then the policy's attempts
 * (machines/llmPolicy.ts), one per `generate` effect. `seq` counts the device's attempts over its
 * life: never reset by a round.
 */
export interface SkullCall extends LlmAttempt {
  /** The fallback round (after the primary model failed): no further fallback, no empty retry. */
  fallback: boolean;
  /** The round's request (prompt built for its model); the attempt's `model` may differ (breaker open). */
  request: LlmCallRequest | null;
}

const LATENCY_WINDOW = 50;

const noCall = (model: string): SkullCall => ({ fallback: false, request: null, ...noAttempt(model) });

/** ASR texts that differ only in case, spacing or final punctuation are the same utterance. */
function normaliseAsr(text: string): string {
  return text.toLowerCase().replace(/[\s.!?…,]+/g, ' ').trim();
}

/** Model and knobs of the next turn: retained skull/config/ia over the environment. */
function effectiveModel(ctx: Pick<SkullContext, 'settings' | 'retainedIa'>): string {
  return ctx.retainedIa?.model ?? ctx.settings.model;
}

/** The request of one round on `model`: prompt, context turns for that model, token budget, knobs. */
function callRequest(ctx: SkullContext, model: string): LlmCallRequest {
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
    model,
    system: built.system,
    messages: [{ role: 'user', content: built.user }],
    maxTokens: Math.min(ia.max_tokens ?? ctx.settings.maxTokens, ctx.settings.maxTokensCap, outputReserve),
    temperature: ia.temperature ?? ctx.settings.temperature,
    topP: ia.top_p ?? ctx.settings.topP,
    reasoningEffort: 'minimal',
    purpose: 'skull',
    offlineHints: { user: job.text },
  };
}

function startRound(ctx: SkullContext, fallback: boolean): SkullCall {
  const model = fallback ? ctx.settings.fallbackModel : effectiveModel(ctx);
  return { fallback, request: callRequest(ctx, model), ...noAttempt(model), seq: ctx.call.seq };
}

/**
 * The model call's policy over `context.call`. The settings carry its knobs (the short timeout on
 * the small model: docs/skull.md § Configuration, 6 s fallback, 12 s primary, also on a primary
 * round while the open breaker swaps it in). On a fallback round the round's model is already the
 * fallback one, so an open breaker changes nothing there.
 */
const policy = llmPolicy<SkullContext, SkullEvent>({
  attempt: (ctx) => ctx.call,
  store: (ctx, attempt) => ({ call: { ...ctx.call, ...attempt } }),
  settings: (ctx) => ctx.settings,
  model: (ctx) => ctx.call.request?.model ?? effectiveModel(ctx),
  breaker: (ctx) => ctx.breaker,
  random: (ctx) => ctx.random,
});

/**
 * The reply post-processed, once per model result: the `replyUsable`/`replyEmpty` guards and the
 * `prepareReply` action of one transition all need it, and it is ≈ 10 % of a turn's CPU. A memo
 * of a pure function of (result, maxSentences, userText): the chart stays pure.
 */
const cleanedMemo = new WeakMap<object, { maxSentences: number; userText: string; text: string }>();
function cleaned(ctx: SkullContext, result: GenerateResult): string {
  const maxSentences = ctx.settings.maxSentences;
  const userText = ctx.current?.text ?? '';
  const hit = cleanedMemo.get(result);
  if (hit && hit.maxSentences === maxSentences && hit.userText === userText) return hit.text;
  const text = postProcess(result.text, { maxSentences, userText });
  cleanedMemo.set(result, { maxSentences, userText, text });
  return text;
}

function reply(ctx: SkullContext, text: string): Outgoing {
  return { response: { ts_ms: ctx.now(), text } };
}

function latencyP50(latencies: readonly number[]): number | null {
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
type ResultPayload = { result: GenerateResult };

const skull = setup({
  types: {
    input: {} as SkullInput,
    context: {} as SkullContext,
    events: {} as SkullEvent,
  },
  actors: {
    breaker: breakerMachine,
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
    /** The answer is about the publish in progress, not a late one about an earlier turn's. */
    isThisPublish: ({ context, event }) => (event.type === 'publish.done' || event.type === 'publish.failed') && event.turn === context.stats.responses,
    /** The answer is about the attempt in progress, not a late one about a timed-out or cancelled attempt. */
    isThisAttempt: ({ context, event }) => (event.type === 'generate.done' || event.type === 'generate.failed') && event.attempt === context.call.seq,
    replyUsable: ({ context, event }) => event.type === 'generate.done' && cleaned(context, event.result) !== '',
    /** Empty after post-processing: asked again once, on a primary round only. */
    replyEmpty: ({ context, event }) => event.type === 'generate.done' && !context.call.fallback && context.emptyRetries < 1 && cleaned(context, event.result) === '',
    ...policy.guards,
    /** Only a primary round whose last attempt was not already on the fallback model falls back. */
    canFallBack: ({ context }) => !context.call.fallback && context.call.model !== context.settings.fallbackModel,
  },
  delays: {
    debounce: ({ context }) => context.settings.debounceMs,
    ...policy.delays,
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
    /**
     * The effect that publishes a reply, provided at wiring time (actors/skull/publisher.ts:
     * ai/response then ai/usage, QoS 1), which answers the actor with `publish.done` /
     * `publish.failed` naming the turn. An effect and its answer, not an actor: no actor is
     * created per turn, and none is kept per device.
     */
    publishReply: (_, _command: PublishCommand) => {
      throw new Error('skull: the publishReply effect is not provided');
    },
    /**
     * The effects of one provider call, provided at wiring time (actors/skull/generator.ts):
     * `generate` starts it and answers the actor with `generate.done` / `generate.failed` naming
     * the attempt; `abortGenerate` (on leaving `attempting`: timeout, cancel, answer) aborts the
     * HTTP request if it still runs. An effect and its answer instead of a promise actor created
     * and stopped per attempt; the AbortController is kept by the wiring, not in context.
     */
    generate: (_, _command: GenerateCommand) => {
      throw new Error('skull: the generate effect is not provided');
    },
    abortGenerate: () => {},
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
    ...policy.actions,
    startPrimaryRound: assign(({ context }) => ({ call: startRound(context, false) })),
    startFallbackRound: assign(({ context }) => ({ call: startRound(context, true) })),
    prepareReply: assign(({ context }, { result }: ResultPayload) => {
      const text = cleaned(context, result);
      const now = context.now();
      const latency = Math.max(0, now - (context.current?.at ?? now));
      const usage = result.usage;
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
            model: result.provider === 'offline' ? result.model : context.call.model,
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
    /** Wiring hooks (logs, metrics): no-ops in the chart. */
    recordRetry: (_, _params: RetryReport) => {},
    reportFallback: (_, _params: { model: string }) => {},
    reportApology: () => {},
    applyIa: assign({ retainedIa: ({ event }) => (event.type === 'config.ia' ? event.config : null) }),
    applyPrompt: assign({ retainedPrompt: ({ event }) => (event.type === 'config.prompt' ? event.text : null) }),
  },
});

const text = ({ event }: { event: SkullEvent }): TextPayload => ({ text: (event as Extract<SkullEvent, TextPayload>).text });
const result = ({ event }: { event: SkullEvent }): ResultPayload => ({ result: (event as Extract<SkullEvent, { type: 'generate.done' }>).result });

/**
 * While a turn runs (responding, publishing): asr.text is ignored and counted;
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
const thisPublishFailed = [
  { guard: and(['isThisPublish', 'hasQueued']), target: 'routing', actions: ['countPublishError', 'finishTurn', 'dequeue'] },
  { guard: 'isThisPublish', target: 'idle', actions: ['countPublishError', 'finishTurn'] },
] as const;

export const skullMachine = skull.createMachine({
  id: 'skull',
  description: 'One Skull device: turns an ASR text into a short spoken reply published over MQTT, one turn at a time, with a debounce of repeated texts.',
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
    call: noCall(input.settings.model),
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
            // less on the common path.
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
          description: 'The model call: attempts, retries after a backoff, the breaker, one fallback round; an empty reply is asked again once.',
          entry: 'startPrimaryRound',
          initial: 'attempting',
          states: {
            attempting: {
              description: 'One provider call (the generate effect), given up after attemptTimeout.',
              entry: ['startAttempt', { type: 'generate', params: ({ context }) => ({ attempt: context.call.seq, request: { ...context.call.request!, model: context.call.model } }) }],
              exit: 'abortGenerate',
              on: {
                'generate.done': [
                  {
                    guard: and(['isThisAttempt', 'replyUsable']),
                    target: '#skull.turn.publishing',
                    actions: ['notifyBreakerSuccess', { type: 'prepareReply', params: result }],
                  },
                  { guard: and(['isThisAttempt', 'replyEmpty']), target: '#skull.turn.responding', reenter: true, actions: ['notifyBreakerSuccess', 'countEmptyRetry'] },
                  { guard: 'isThisAttempt', target: '#skull.turn.publishing', actions: ['notifyBreakerSuccess', 'prepareApology', 'reportApology'] },
                ],
                'generate.failed': { guard: 'isThisAttempt', ...attemptFailed },
              },
              after: { attemptTimeout: attemptTimedOut },
            },
            // No retry left: one fallback round on the primary's failure, else the apology.
            ...policy.states([
              {
                guard: 'canFallBack' as const,
                target: 'attempting' as const,
                actions: ['countFallback' as const, { type: 'reportFallback' as const, params: ({ context }: { context: SkullContext }) => ({ model: context.settings.fallbackModel }) }, 'startFallbackRound' as const],
              },
              { target: '#skull.turn.publishing' as const, actions: ['prepareApology' as const, 'reportApology' as const] },
            ]),
          },
          on: { ...busy, 'ai.cancel': { target: 'publishing', actions: 'prepareInterrupted' } },
        },
        publishing: {
          description: 'Hands the reply to publishReply (QoS 1, answered once acked), then the next queued job or idle.',
          entry: {
            type: 'publishReply',
            params: ({ context }) => ({ turn: context.stats.responses, outgoing: { ...(context.outgoing ?? reply(context, APOLOGY_TEXT)), deviceId: context.deviceId } }),
          },
          // A broker that never acknowledges must not hold the device busy forever.
          after: { publishTimeout: [...publishFailed] },
          on: {
            ...busy,
            'publish.done': [
              { guard: and(['isThisPublish', 'hasQueued']), target: 'routing', actions: ['finishTurn', 'dequeue'] },
              { guard: 'isThisPublish', target: 'idle', actions: 'finishTurn' },
            ],
            'publish.failed': [...thisPublishFailed],
          },
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

/*
 * Selectors: what the edges (health, drain, logs) read of a device, never its context directly.
 */

/** Jobs in flight: the one running (if any) plus those queued. */
export function inFlight(snapshot: SkullSnapshot): number {
  return snapshot.context.queue.length + (snapshot.matches({ turn: 'idle' }) ? 0 : 1);
}

/** A turn runs (responding or publishing). */
export function turnRunning(snapshot: SkullSnapshot): boolean {
  return !snapshot.matches({ turn: 'idle' });
}

/** The jobs waiting behind the turn that runs, oldest first. */
export function queuedJobs(snapshot: SkullSnapshot): readonly Job[] {
  return snapshot.context.queue;
}

/** The device's counters since it started. */
export function deviceStats(snapshot: SkullSnapshot): Readonly<SkullStats> {
  return snapshot.context.stats;
}

/** Median latency of the last model replies, ms (null before the first). */
export function replyLatencyP50(snapshot: SkullSnapshot): number | null {
  return latencyP50(snapshot.context.latencies);
}

/** The model of the next turn (retained skull/config/ia over the environment). */
export function nextModel(snapshot: SkullSnapshot): string {
  return effectiveModel(snapshot.context);
}

/** The device's circuit breaker (subscribe to it to see it open and close). */
export function deviceBreaker(snapshot: SkullSnapshot): BreakerRef {
  return snapshot.context.breaker;
}

/** The breaker is open: every call goes to the fallback model. */
export function breakerOpen(snapshot: SkullSnapshot): boolean {
  return isBreakerOpen(snapshot.context.breaker.getSnapshot());
}
