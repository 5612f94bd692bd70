import { assign, fromPromise, setup } from 'xstate';
import type { GenerateResult } from './llmPort.js';
import type { BreakerRef } from './breaker.js';
import { attemptFailed, attemptTimedOut, llmPolicy, noAttempt, type LlmAttempt, type LlmCallErrorKind, type LlmCallRequest, type LlmPolicySettings, type RetryReport } from './llmPolicy.js';


/**
 * One LLM request, with its resilience policy (machines/llmPolicy.ts, the one definition Skull
 * uses too), as steps: attempting → (decidingRetry → backingOff → attempting)* → succeeded | failed.
 *
 * - `attempting` invokes the named actor `generate` (provided at wiring time, see
 *   `actors/llm/llmWiring.ts`) and arms the named delay `attemptTimeout`. Leaving the state
 *   stops the actor, whose AbortSignal aborts the HTTP request.
 * - Transient errors are retried at most `maxRetries` times after a backoff (`input.random` is the
 *   jitter's source, injectable so tests are deterministic); any other error fails at once.
 * - With a breaker ref, every failed attempt sends `breaker.failure` and a success sends
 *   `breaker.success` when the breaker counts failures to forget; while it is open and a
 *   `fallbackModel` is set, attempts use that model (with `fallbackAttemptTimeoutMs` when set).
 *
 * No SDK, no I/O: the named action `recordRetry` is a no-op here and is provided by the wiring
 * (metrics).
 */
export interface LlmCallInput {
  request: LlmCallRequest;
  /** Retries of transient errors (LLM_MAX_RETRIES). */
  maxRetries: number;
  /** Per-attempt timeout, ms (LLM_ATTEMPT_TIMEOUT_MS). */
  attemptTimeoutMs: number;
  /** Per-attempt timeout of an attempt on the fallback model, ms; `attemptTimeoutMs` when absent. */
  fallbackAttemptTimeoutMs?: number;
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

export type LlmCallOutput =
  | { ok: true; result: GenerateResult; attempts: number; model: string }
  | { ok: false; error: { kind: LlmCallErrorKind; message: string; status?: number }; attempts: number; model: string };

/** What the `generate` actor receives. */
export interface GenerateActorInput {
  request: LlmCallRequest;
}

export interface LlmCallContext extends LlmAttempt {
  request: LlmCallRequest;
  policy: LlmPolicySettings;
  breaker: BreakerRef | undefined;
  random: () => number;
  result: GenerateResult | undefined;
}

const policy = llmPolicy<LlmCallContext, { type: string }>({
  attempt: (context) => context,
  store: (_, attempt) => attempt,
  settings: (context) => context.policy,
  model: (context) => context.request.model,
  breaker: (context) => context.breaker,
  random: (context) => context.random,
});

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
    ...policy.guards,
  },
  delays: {
    ...policy.delays,
  },
  actions: {
    ...policy.actions,
    keepResult: assign({ result: (_, result: GenerateResult) => result }),
    /** Wiring hook (metrics); a no-op in the chart. */
    recordRetry: (_, _params: RetryReport) => {},
  },
}).createMachine({
  id: 'llmCall',
  description: 'One model call under the shared policy: attempts with a timeout, retries of transient errors after a backoff, the fallback model while the breaker is open.',
  context: ({ input }) => ({
    request: input.request,
    policy: {
      maxRetries: input.maxRetries,
      timeoutMs: input.attemptTimeoutMs,
      fallbackTimeoutMs: input.fallbackAttemptTimeoutMs,
      backoffBaseMs: input.backoffBaseMs,
      retryAfterCapMs: input.retryAfterCapMs,
      fallbackModel: input.fallbackModel,
    },
    breaker: input.breaker,
    random: input.random ?? Math.random,
    ...noAttempt(input.request.model),
    result: undefined,
  }),
  initial: 'attempting',
  states: {
    attempting: {
      description: 'One provider call (the invoked generate actor, aborted on leaving), given up after attemptTimeout.',
      entry: 'startAttempt',
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
      after: { attemptTimeout: attemptTimedOut },
    },
    ...policy.states([{ target: 'failed' as const }]),
    succeeded: { description: 'The provider answered: its result is the output.', type: 'final' },
    failed: { description: 'No retry left, or an error not worth one: the last error is the output.', type: 'final' },
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

