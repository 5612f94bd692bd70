import { assign, enqueueActions, type EventObject, type MachineContext } from 'xstate';
import { LlmError, type GenerateRequest, type LlmErrorKind } from './llmPort.js';
import { breakerFailures, isBreakerOpen, type BreakerRef } from './breaker.js';

/**
 * The LLM call's resilience policy, written once and used by every chart that calls a model
 * (machines/llmCall.ts, and machines/skull.ts inside its turn):
 *
 *   attempting → (decidingRetry → backingOff → attempting)* → the chart's success or way out
 *
 * - each attempt (`startAttempt`) uses the round's model, or the fallback model while the breaker
 *   is open; the model is chosen again before each retry, so a breaker that opens mid-call
 *   redirects the remaining attempts;
 * - an attempt is given up after the named delay `attemptTimeout`: `timeoutMs`, or
 *   `fallbackTimeoutMs` (when set) for an attempt on the fallback model;
 * - every failed attempt (provider error or timeout) is kept and told to the breaker
 *   (`breaker.failure`); a success tells it only when it counts failures to forget;
 * - transient errors (LlmError.transient: timeout, 429, 5xx, network, empty) are retried at most
 *   `maxRetries` times after the named delay `backoff`: `retryAfterMs` when the provider sent one
 *   (capped at `retryAfterCapMs`), else `backoffBaseMs * 2^retry` plus 100–400 ms of jitter;
 *   anything else leaves at once by the chart's own way out (`exhausted`).
 *
 * A chart keeps the attempts' state (`LlmAttempt`) where it likes and tells the policy through a
 * lens; it spreads `guards`, `delays` and `actions` into its setup and places `states(exhausted)`,
 * `attemptTimedOut` and `attemptFailed` in its own `attempting` state, which also says how an
 * attempt runs (an invoked actor in llmCall, an effect and its answer event in skull) and what a
 * success does. The named action `recordRetry` is the chart's (a wiring hook: logs, metrics).
 */
export type LlmCallRequest = Omit<GenerateRequest, 'signal' | 'onDelta'>;

export type LlmCallErrorKind = LlmErrorKind | 'unknown';

export interface LlmCallError {
  kind: LlmCallErrorKind;
  message: string;
  status?: number;
  /** Server-requested wait, ms, when the provider sent `retry-after`. */
  retryAfterMs?: number;
  transient: boolean;
}

/** The attempts of one call (or one round of a Skull turn). */
export interface LlmAttempt {
  /** Model of the current (or last) attempt. */
  model: string;
  /** Attempts made in this call. */
  attempts: number;
  /** Number of the current (or last) attempt over the owner's life: names the attempt, so a late answer is recognised. */
  seq: number;
  /** Retries already scheduled. */
  retries: number;
  /** Wait of the current backoff, ms. */
  backoffMs: number;
  lastError: LlmCallError | undefined;
}

/** The policy's knobs. */
export interface LlmPolicySettings {
  /** Retries of transient errors (LLM_MAX_RETRIES). */
  maxRetries: number;
  /** Per-attempt timeout, ms. */
  timeoutMs: number;
  /** Per-attempt timeout on the fallback model, ms (the small model answers sooner); `timeoutMs` when absent. */
  fallbackTimeoutMs?: number | undefined;
  /** First backoff, ms, doubled each retry. */
  backoffBaseMs: number;
  /** Longest `retry-after` honoured, ms. */
  retryAfterCapMs: number;
  /** Model used while the breaker is open. */
  fallbackModel?: string | undefined;
}

/** Where a chart keeps what the policy reads and writes. */
export interface LlmPolicyLens<TContext> {
  attempt(context: TContext): LlmAttempt;
  /** The context update that stores `attempt`. */
  store(context: TContext, attempt: LlmAttempt): Partial<TContext>;
  settings(context: TContext): LlmPolicySettings;
  /** The model of this call (or round), before the breaker has its say. */
  model(context: TContext): string;
  breaker(context: TContext): BreakerRef | undefined;
  /** Source of jitter in [0, 1). */
  random(context: TContext): () => number;
}

/** What `recordRetry` is told: why, on which model, after which attempt, how long it waits. */
export interface RetryReport {
  kind: LlmCallErrorKind;
  model: string;
  attempt: number;
  backoffMs: number;
}

/** Jitter range added to exponential backoff. */
export const JITTER_MIN_MS = 100;
export const JITTER_MAX_MS = 400;

export const noAttempt = (model: string): LlmAttempt => ({ model, attempts: 0, seq: 0, retries: 0, backoffMs: 0, lastError: undefined });

/** Normalises whatever a provider call rejected with. */
function toCallError(error: unknown): LlmCallError {
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
function attemptTimedOutError(ms: number): LlmCallError {
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

/** The attempt's timeout: the short one on the fallback model when the settings give one. */
function attemptTimeoutOf(settings: LlmPolicySettings, model: string): number {
  return settings.fallbackTimeoutMs !== undefined && model === settings.fallbackModel ? settings.fallbackTimeoutMs : settings.timeoutMs;
}

/**
 * A failed attempt (the provider's error, in `event.error`): kept, told to the breaker, then the
 * retry decision.
 */
// On one line: test/model/mutate.ts skips an `actions:` indented by two spaces (setup()'s implementations),
// and each action of this list must be dropped by its mutants like those written in the charts.
export const attemptFailed = { target: 'decidingRetry', actions: [{ type: 'keepError', params: ({ event }: { event: { error: unknown } }) => toCallError(event.error) }, 'notifyBreakerFailure'] } as const;

/** An attempt given up after `attemptTimeout`: kept as a transient timeout, told to the breaker. */
export const attemptTimedOut = { target: 'decidingRetry', actions: ['keepTimeoutError', 'notifyBreakerFailure'] } as const;

/** The policy's guards, delays, actions and states for one chart, over its lens. */
export function llmPolicy<TContext extends MachineContext, TEvent extends EventObject>(lens: LlmPolicyLens<TContext>) {
  const timeoutOf = (context: TContext) => attemptTimeoutOf(lens.settings(context), lens.attempt(context).model);
  const update = (context: TContext, patch: Partial<LlmAttempt>) => lens.store(context, { ...lens.attempt(context), ...patch });
  const retryReport = ({ context }: { context: TContext }): RetryReport => {
    const a = lens.attempt(context);
    return { kind: a.lastError?.kind ?? 'unknown', model: a.model, attempt: a.attempts, backoffMs: a.backoffMs };
  };
  return {
    guards: {
      canRetry: ({ context }: { context: TContext }) => {
        const a = lens.attempt(context);
        return a.lastError?.transient === true && a.retries < lens.settings(context).maxRetries;
      },
    },
    delays: {
      attemptTimeout: ({ context }: { context: TContext }) => timeoutOf(context),
      backoff: ({ context }: { context: TContext }) => lens.attempt(context).backoffMs,
    },
    actions: {
      /** The next attempt: its model (the fallback one while the breaker is open), counted and numbered. */
      startAttempt: assign<TContext, TEvent, undefined, TEvent, never>(({ context }) => {
        const a = lens.attempt(context);
        const { fallbackModel } = lens.settings(context);
        const breaker = lens.breaker(context);
        const model = fallbackModel !== undefined && breaker !== undefined && isBreakerOpen(breaker.getSnapshot()) ? fallbackModel : lens.model(context);
        return lens.store(context, { ...a, model, attempts: a.attempts + 1, seq: a.seq + 1 });
      }),
      keepError: assign<TContext, TEvent, LlmCallError, TEvent, never>(({ context }, error) => update(context, { lastError: error })),
      keepTimeoutError: assign<TContext, TEvent, undefined, TEvent, never>(({ context }) => update(context, { lastError: attemptTimedOutError(timeoutOf(context)) })),
      planBackoff: assign<TContext, TEvent, undefined, TEvent, never>(({ context }) => {
        const a = lens.attempt(context);
        const s = lens.settings(context);
        return update(context, { backoffMs: backoffDelay({ backoffBaseMs: s.backoffBaseMs, retryAfterCapMs: s.retryAfterCapMs, random: lens.random(context) }, a.retries, a.lastError), retries: a.retries + 1 });
      }),
      notifyBreakerFailure: enqueueActions<TContext, TEvent, undefined, TEvent, never, never, never, never, never>(({ context, enqueue }) => {
        const breaker = lens.breaker(context);
        if (breaker) enqueue.sendTo(breaker, { type: 'breaker.failure' });
      }),
      /**
       * A success only forgets the failures counted in the window (an open breaker ignores it):
       * with none counted — nearly every call — the breaker is not woken up.
       */
      notifyBreakerSuccess: enqueueActions<TContext, TEvent, undefined, TEvent, never, never, never, never, never>(({ context, enqueue }) => {
        const breaker = lens.breaker(context);
        if (breaker && breakerFailures(breaker.getSnapshot()) > 0) enqueue.sendTo(breaker, { type: 'breaker.success' });
      }),
    },
    /**
     * The retry decision and the wait, with the chart's way out when no retry is left (`exhausted`:
     * the transitions tried in order after `canRetry`).
     */
    states<const X extends readonly unknown[]>(exhausted: X) {
      return {
        decidingRetry: {
          description: 'A failed attempt: a transient error is retried after a backoff, at most maxRetries times; else the way out.',
          always: [{ guard: 'canRetry' as const, target: 'backingOff' as const, actions: ['planBackoff' as const, { type: 'recordRetry' as const, params: retryReport }] }, ...exhausted],
        },
        backingOff: {
          description: 'The wait before a retry (retry-after, else exponential with jitter).',
          after: { backoff: 'attempting' as const },
        },
      };
    },
  };
}
