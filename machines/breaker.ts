import { assign, raise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';

/**
 * Circuit breaker shared by the LLM calls of one surface.
 *
 * `closed` counts failures; N failures within `windowMs` (with no success in between) open it.
 * While `open`, callers use their fallback model; after `cooldownMs` it closes again.
 *
 * The window runs on the actor's clock, never on Date.now: each failure schedules a delayed
 * `breaker.expire` (named delay `window`) that forgets it, so `SimulatedClock` drives the window in
 * tests. Each expire carries the generation it belongs to; a success or a trip starts a new
 * generation, so expires still pending from an older one are ignored.
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
  /** Failures still inside the window. */
  failures: number;
  /** Current generation of the window; bumped on success and on every state change. */
  generation: number;
}

export type BreakerEvent =
  | { type: 'breaker.failure' }
  | { type: 'breaker.success' }
  /** Internal: raised `windowMs` after a failure to forget it. */
  | { type: 'breaker.expire'; generation: number };

export const breakerMachine = setup({
  types: {
    input: {} as BreakerInput,
    context: {} as BreakerContext,
    events: {} as BreakerEvent,
  },
  guards: {
    /** This failure is the N-th inside the window. */
    reachesThreshold: ({ context }) => context.failures + 1 >= context.failureThreshold,
    /** The expiring failure belongs to the current window (not to one a success or trip cleared). */
    isCurrentFailure: ({ context, event }) =>
      event.type === 'breaker.expire' && event.generation === context.generation && context.failures > 0,
  },
  delays: {
    window: ({ context }) => context.windowMs,
    cooldown: ({ context }) => context.cooldownMs,
  },
  actions: {
    countFailure: assign({ failures: ({ context }) => context.failures + 1 }),
    scheduleExpiry: raise(({ context }) => ({ type: 'breaker.expire' as const, generation: context.generation }), { delay: 'window' }),
    forgetFailure: assign({ failures: ({ context }) => Math.max(0, context.failures - 1) }),
    /** Starts a new window: pending expiries of the old one become no-ops. */
    resetWindow: assign({ failures: 0, generation: ({ context }) => context.generation + 1 }),
  },
}).createMachine({
  id: 'breaker',
  context: ({ input }) => ({
    failureThreshold: input.failureThreshold,
    windowMs: input.windowMs,
    cooldownMs: input.cooldownMs,
    failures: 0,
    generation: 0,
  }),
  initial: 'closed',
  states: {
    closed: {
      on: {
        'breaker.failure': [
          { guard: 'reachesThreshold', target: 'open', actions: 'resetWindow' },
          { actions: ['countFailure', 'scheduleExpiry'] },
        ],
        'breaker.success': { actions: 'resetWindow' },
        'breaker.expire': { guard: 'isCurrentFailure', actions: 'forgetFailure' },
      },
    },
    open: {
      // Failures and successes of fallback calls do not extend the cool-down.
      after: { cooldown: { target: 'closed', actions: 'resetWindow' } },
    },
  },
});

export type BreakerRef = ActorRefFrom<typeof breakerMachine>;
export type BreakerSnapshot = SnapshotFrom<typeof breakerMachine>;

/** True while the breaker is open (calls should go to the fallback model). */
export function isBreakerOpen(snapshot: BreakerSnapshot): boolean {
  return snapshot.matches('open');
}
