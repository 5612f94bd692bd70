import { assign, enqueueActions, fromPromise, setup, type ActorRefFrom } from 'xstate';
import { LlmError, type GenerateRequest, type GenerateResult, type LlmErrorKind } from '../actors/llm/types.js';
import { breakerFailures, isBreakerOpen, type BreakerRef } from './breaker.js';

/**
 * One LLM request, with its resilience policy, as steps:
 * choosingModel → attempting → (decidingRetry → backingOff → choosingModel)* → succeeded | failed.
 *
 * - `attempting` invokes the named actor `generate` (provided at wiring time, see
 *   `actors/llm/llmCallActor.ts`) and arms the named delay `attemptTimeout`. Leaving the state
 *   stops the actor, whose AbortSignal aborts the HTTP request.
 * - Transient errors (LlmError.transient: timeout, 429, 5xx, network, empty) are retried at most
 *   `maxRetries` times; any other error fails at once.
 * - `backingOff` waits the named delay `backoff`: `retryAfterMs` when the provider sent one
 *   (capped at `retryAfterCapMs`), else `backoffBaseMs * 2^retry` plus 100–400 ms jitter drawn
 *   from `input.random` (injectable so tests are deterministic).
 * - With a breaker ref, every failed attempt sends `breaker.failure` and a success sends
 *   `breaker.success` when the breaker counts failures to forget; while it is open and a
 *   `fallbackModel` is set, attempts use that model. The model is chosen again before each
 *   retry, so a breaker that opens mid-call redirects the remaining attempts.
 *
 * No SDK, no I/O: the named action `recordRetry` is a no-op here and is provided by the wiring
 * (metrics).
 */
export type LlmCallRequest = Omit<GenerateRequest, 'signal' | 'onDelta'>;

export interface LlmCallInput {
  request: LlmCallRequest;
  /** Retries of transient errors (LLM_MAX_RETRIES). */
  maxRetries: number;
  /** Per-attempt timeout, ms (LLM_ATTEMPT_TIMEOUT_MS). */
  attemptTimeoutMs: number;
  /** First backoff, ms, doubled each retry (LLM_BACKOFF_BASE_MS). */
  backoffBaseMs: number;
  /** Longest `retry-after` honoured, ms (LLM_RETRY_AFTER_CAP_MS). */
  retryAfterCapMs: number;
  /** Model used while the breaker is open. */
  fallbackModel?: string;
  breaker?: BreakerRef;
  /** Source of jitter in [0, 1); Math.random when absent. */
  random?: () => number;
}

export type LlmCallErrorKind = LlmErrorKind | 'unknown';

export interface LlmCallError {
  kind: LlmCallErrorKind;
  message: string;
  status?: number;
  /** Server-requested wait, ms, when the provider sent `retry-after`. */
  retryAfterMs?: number;
  transient: boolean;
}

export type LlmCallOutput =
  | { ok: true; result: GenerateResult; attempts: number; model: string }
  | { ok: false; error: { kind: LlmCallErrorKind; message: string; status?: number }; attempts: number; model: string };

/** What the `generate` actor receives. */
export interface GenerateActorInput {
  request: LlmCallRequest;
}

export interface LlmCallContext {
  request: LlmCallRequest;
  maxRetries: number;
  attemptTimeoutMs: number;
  backoffBaseMs: number;
  retryAfterCapMs: number;
  fallbackModel: string | undefined;
  breaker: BreakerRef | undefined;
  random: () => number;
  /** Model of the current (or last) attempt. */
  model: string;
  attempts: number;
  /** Retries already scheduled. */
  retries: number;
  /** Wait of the current backoff, ms (kept so tests and logs can read it). */
  backoffMs: number;
  lastError: LlmCallError | undefined;
  result: GenerateResult | undefined;
}

/** Jitter range added to exponential backoff. */
export const JITTER_MIN_MS = 100;
export const JITTER_MAX_MS = 400;

/** Normalises whatever the generate actor rejected with. */
export function toCallError(error: unknown): LlmCallError {
  if (error instanceof LlmError) {
    return {
      kind: error.kind,
      message: error.message,
      ...(error.status !== undefined ? { status: error.status } : {}),
      ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
      transient: error.transient,
    };
  }
  // Anything else is a bug in a provider, not a flaky network: do not retry it.
  return { kind: 'unknown', message: error instanceof Error ? error.message : String(error), transient: false };
}

/** The error of an attempt given up after `ms` (transient: retried like a provider's timeout). */
export function attemptTimedOut(ms: number): LlmCallError {
  return { kind: 'timeout', message: `attempt timed out after ${ms} ms`, transient: true };
}

/** The wait before retry number `retry` (0-based). */
export function backoffDelay(
  opts: { backoffBaseMs: number; retryAfterCapMs: number; random: () => number },
  retry: number,
  lastError: LlmCallError | undefined,
): number {
  if (lastError?.retryAfterMs !== undefined) return Math.min(Math.max(0, lastError.retryAfterMs), opts.retryAfterCapMs);
  const jitter = JITTER_MIN_MS + Math.floor(opts.random() * (JITTER_MAX_MS - JITTER_MIN_MS + 1));
  return opts.backoffBaseMs * 2 ** retry + Math.min(jitter, JITTER_MAX_MS);
}

/**
 * A failed attempt (the provider's error): kept, told to the breaker, then the retry decision.
 * Shared with the skull chart, which runs the same policy in its own states (machines/skull.ts).
 */
// On one line: test/model/mutate.ts skips an `actions:` indented by two spaces (setup()'s implementations),
// and each action of this list must be dropped by its mutants like those written in the chart.
export const attemptFailed = { target: 'decidingRetry', actions: [{ type: 'keepError', params: ({ event }: { event: { error: unknown } }) => toCallError(event.error) }, 'notifyBreakerFailure'] } as const;

export const llmCallMachine = setup({
  types: {
    input: {} as LlmCallInput,
    context: {} as LlmCallContext,
    output: {} as LlmCallOutput,
  },
  actors: {
    // Provided at wiring time (provideLlmCall); this default only says it is missing.
    generate: fromPromise<GenerateResult, GenerateActorInput>(async () => {
      throw new Error('llmCall: the generate actor is not provided (use provideLlmCall)');
    }),
  },
  guards: {
    shouldUseFallback: ({ context }) =>
      context.fallbackModel !== undefined && context.breaker !== undefined && isBreakerOpen(context.breaker.getSnapshot()),
    canRetry: ({ context }) => context.lastError?.transient === true && context.retries < context.maxRetries,
  },
  delays: {
    attemptTimeout: ({ context }) => context.attemptTimeoutMs,
    backoff: ({ context }) => context.backoffMs,
  },
  actions: {
    usePrimaryModel: assign({ model: ({ context }) => context.request.model }),
    useFallbackModel: assign({ model: ({ context }) => context.fallbackModel ?? context.request.model }),
    countAttempt: assign({ attempts: ({ context }) => context.attempts + 1 }),
    keepResult: assign({ result: (_, result: GenerateResult) => result }),
    keepError: assign({ lastError: (_, error: LlmCallError) => error }),
    planBackoff: assign({
      backoffMs: ({ context }) => backoffDelay(context, context.retries, context.lastError),
      retries: ({ context }) => context.retries + 1,
    }),
    notifyBreakerFailure: enqueueActions(({ context, enqueue }) => {
      if (context.breaker) enqueue.sendTo(context.breaker, { type: 'breaker.failure' });
    }),
    notifyBreakerSuccess: enqueueActions(({ context, enqueue }) => {
      // A success only forgets the failures counted in the window (an open breaker ignores it):
      // with none counted — nearly every call — the breaker has nothing to change and is not
      // woken up, which saves it a macrostep per call (issue 17: Skull's reply path).
      if (context.breaker && breakerFailures(context.breaker.getSnapshot()) > 0) enqueue.sendTo(context.breaker, { type: 'breaker.success' });
    }),
    /** Wiring hook (metrics); a no-op in the chart. */
    recordRetry: (_, _params: { kind: LlmCallErrorKind }) => {},
  },
}).createMachine({
  id: 'llmCall',
  context: ({ input }) => ({
    request: input.request,
    maxRetries: input.maxRetries,
    attemptTimeoutMs: input.attemptTimeoutMs,
    backoffBaseMs: input.backoffBaseMs,
    retryAfterCapMs: input.retryAfterCapMs,
    fallbackModel: input.fallbackModel,
    breaker: input.breaker,
    random: input.random ?? Math.random,
    model: input.request.model,
    attempts: 0,
    retries: 0,
    backoffMs: 0,
    lastError: undefined,
    result: undefined,
  }),
  initial: 'choosingModel',
  states: {
    choosingModel: {
      always: [
        { guard: 'shouldUseFallback', target: 'attempting', actions: 'useFallbackModel' },
        { target: 'attempting', actions: 'usePrimaryModel' },
      ],
    },
    attempting: {
      entry: 'countAttempt',
      invoke: {
        id: 'generate',
        src: 'generate',
        input: ({ context }) => ({ request: { ...context.request, model: context.model } }),
        onDone: {
          target: 'succeeded',
          actions: [{ type: 'keepResult', params: ({ event }) => event.output }, 'notifyBreakerSuccess'],
        },
        onError: attemptFailed,
      },
      after: {
        attemptTimeout: {
          target: 'decidingRetry',
          actions: [
            { type: 'keepError', params: ({ context }) => attemptTimedOut(context.attemptTimeoutMs) },
            'notifyBreakerFailure',
          ],
        },
      },
    },
    decidingRetry: {
      always: [
        {
          guard: 'canRetry',
          target: 'backingOff',
          actions: [{ type: 'recordRetry', params: ({ context }) => ({ kind: context.lastError?.kind ?? 'unknown' }) }, 'planBackoff'],
        },
        { target: 'failed' },
      ],
    },
    backingOff: {
      after: { backoff: { target: 'choosingModel' } },
    },
    succeeded: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }): LlmCallOutput => {
    if (context.result) return { ok: true, result: context.result, attempts: context.attempts, model: context.model };
    const error = context.lastError ?? { kind: 'unknown' as const, message: 'no attempt was made', transient: false };
    return {
      ok: false,
      error: { kind: error.kind, message: error.message, ...(error.status !== undefined ? { status: error.status } : {}) },
      attempts: context.attempts,
      model: context.model,
    };
  },
});

export type LlmCallRef = ActorRefFrom<typeof llmCallMachine>;
