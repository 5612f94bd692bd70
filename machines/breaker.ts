import { assign, enqueueActions, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';

/**
 * Circuit breaker shared by the LLM calls of one surface.
 *
 * `closed` counts failures; N failures within `windowMs` (with no success in between) open it.
 * While `open`, callers use their fallback model; after `cooldownMs` it closes again.
 *
 * The window runs on the actor's clock, never on Date.now: each failure schedules a delayed
 * `breaker.expire` (named delay `window`) that forgets the oldest failure, so `SimulatedClock`
 * drives the window in tests. A success, a trip and the end of the cool-down cancel the expiries
 * still pending, so an old expiry never forgets a newer failure.
 *
 * It emits nothing and records nothing outside: whoever wires it reads `isBreakerOpen(snapshot)`.
 */
export interface BreakerInput {
  /** Failures that open the breaker (BREAKER_FAILURES). */
  failureThreshold: number;
  /** Window in which they are counted, ms (BREAKER_WINDOW_MS). */
  windowMs: number;
  /** How long it stays open, ms (BREAKER_COOLDOWN_MS). */
  cooldownMs: number;
}

export interface BreakerContext extends BreakerInput {
  /** Ids of the scheduled expiries, one per failure still inside the window, oldest first. */
  pendingExpiries: string[];
  /** Source of unique expiry ids. */
  seq: number;
}

export type BreakerEvent =
  | { type: 'breaker.failure' }
  | { type: 'breaker.success' }
  /** Internal: raised `windowMs` after a failure to forget it. */
  | { type: 'breaker.expire' };

export const breakerMachine = setup({
  types: {
    input: {} as BreakerInput,
    context: {} as BreakerContext,
    events: {} as BreakerEvent,
  },
  guards: {
    /** This failure is the N-th inside the window. */
    reachesThreshold: ({ context }) => context.pendingExpiries.length + 1 >= context.failureThreshold,
  },
  delays: {
    window: ({ context }) => context.windowMs,
    cooldown: ({ context }) => context.cooldownMs,
  },
  actions: {
    countFailure: enqueueActions(({ context, enqueue }) => {
      const id = `breaker.expire.${context.seq}`;
      enqueue.assign({ pendingExpiries: [...context.pendingExpiries, id], seq: context.seq + 1 });
      enqueue.raise({ type: 'breaker.expire' }, { id, delay: 'window' });
    }),
    // Every expiry has the same delay, so the one firing is always the oldest.
    forgetOldestFailure: assign({ pendingExpiries: ({ context }) => context.pendingExpiries.slice(1) }),
    forgetAllFailures: enqueueActions(({ context, enqueue }) => {
      for (const id of context.pendingExpiries) enqueue.cancel(id);
      enqueue.assign({ pendingExpiries: [] });
    }),
  },
}).createMachine({
  id: 'breaker',
  description: 'Counts the failed model calls of one device in a sliding window and sends its calls to the fallback model for a cool-down once they pass the threshold.',
  context: ({ input }) => ({
    failureThreshold: input.failureThreshold,
    windowMs: input.windowMs,
    cooldownMs: input.cooldownMs,
    pendingExpiries: [],
    seq: 0,
  }),
  initial: 'closed',
  states: {
    closed: {
      description: 'Calls go to the primary model; each failure is counted until it leaves the window.',
      on: {
        'breaker.failure': [
          { guard: 'reachesThreshold', target: 'open', actions: 'forgetAllFailures' },
          { actions: 'countFailure' },
        ],
        'breaker.success': { actions: 'forgetAllFailures' },
        'breaker.expire': { actions: 'forgetOldestFailure' },
      },
    },
    open: {
      description: 'Too many recent failures: calls go to the fallback model until the cool-down ends.',
      // Failures and successes of fallback calls do not extend the cool-down.
      after: { cooldown: { target: 'closed' } },
    },
  },
});

export type BreakerRef = ActorRefFrom<typeof breakerMachine>;
export type BreakerSnapshot = SnapshotFrom<typeof breakerMachine>;

/** True while the breaker is open (calls should go to the fallback model). */
export function isBreakerOpen(snapshot: BreakerSnapshot): boolean {
  return snapshot.matches('open');
}

/** Failures currently inside the window (for metrics and tests). */
export function breakerFailures(snapshot: BreakerSnapshot): number {
  return snapshot.context.pendingExpiries.length;
}
