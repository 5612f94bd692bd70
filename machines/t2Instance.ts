import { and, assign, fromCallback, fromPromise, not, or, raise, setup, stateIn, type SnapshotFrom } from 'xstate';

/**
 * The lifecycle of one T2 instance among several sharing a store (docs/scaling.md).
 *
 * Three regions:
 * - `instance`: `serving` ⇄ `fenced` → `draining` → `stopped`. An instance whose claims in the
 *   store could expire before it renews them stops acting as their owner (`fenced`: its sessions
 *   are stopped unsaved, admission refuses, /readyz says 503) until a renewal reaches the store
 *   again. A tick that is only late (the loop was busy; the last renewal reached the store, none
 *   is waiting, the claims have not expired) renews instead of fencing, and fences only if that
 *   renewal fails or is still not done halfway to the claims' expiry (`lateTick`). A drain first
 *   asks whether other instances run (`peers`): then the live dialogues are handed over to them
 *   (their pages reconnect there) instead of ended.
 * - `ticker`: the renewal period's ticks, from start until the drain has ended the sessions.
 * - `sweeper`: one renewal, then one sweep (the orphaned sessions of dead instances, the
 *   recordings a drain left pending), at a time; a tick that comes while one runs asks for one
 *   more after it (`again`).
 *
 * Every side effect is an invoked actor provided at wiring time (actors/t2/t2InstanceWiring.ts).
 * Guards read only the context and the events: the claims' clock is read by the ticker and by
 * the actors, and arrives in their events.
 */

/** A renewal period: where the claims stand on their clock. */
export interface TickEvent {
  type: 'tick';
  /** The claims could expire before the next renewal completes (`Claims.fenced()`). */
  claimsAtRisk: boolean;
  /** Until the claims expire, ms (negative: expired). */
  expiresInMs: number;
}

interface StopEvent {
  type: 'stop';
  /** Epoch ms: the drain's start, and the time by which everything must be done. */
  startedAt: number;
  deadlineAt: number;
}

/** Raised by the sweeper for the instance region: what the renewal found. */
type RenewalDoneEvent = { type: 'renewal.done' } & RenewalOutcome;

export type T2InstanceEvent = TickEvent | StopEvent | RenewalDoneEvent | { type: 'sessions.drained' };

/** What a renewal found: whether it reached the store, and where the claims stand after it. */
export interface RenewalOutcome {
  reached: boolean;
  claimsAtRisk: boolean;
}

export interface SweepInput {
  /** Set when this sweep follows the renewal that ended a fence: the sessions the fence stopped. */
  closeFenced: string[] | null;
}

export interface DrainInput {
  startedAt: number;
  deadlineAt: number;
  /** Other instances run: live dialogues are handed over to them instead of ended. */
  handOver: boolean;
}

export interface T2InstanceContext {
  /** Whether the last renewal reached the store. */
  lastRenewal: 'ok' | 'failed';
  /** A tick came while a renewal or a sweep ran: one more renewal after it. */
  again: boolean;
  /** The sessions the current fence stopped. */
  fencedSessions: string[];
  /** The sessions the ended fence stopped, for the next sweep to close and grade. */
  toClose: string[] | null;
  drain: DrainInput | null;
}

/** A renewal's outcome, from its actor's done event or from the `renewal.done` the sweeper raises. */
function outcome(event: unknown): RenewalOutcome {
  const e = event as { output?: RenewalOutcome } & Partial<RenewalOutcome>;
  return e.output ?? { reached: e.reached === true, claimsAtRisk: e.claimsAtRisk === true };
}

const notProvided = (name: string) => () => {
  throw new Error(`${name} not provided`);
};

export const t2InstanceMachine = setup({
  types: {
    context: {} as T2InstanceContext,
    events: {} as T2InstanceEvent,
  },
  actors: {
    /** Sends a `tick` every renewal period. */
    ticks: fromCallback<TickEvent>(notProvided('ticks')),
    /** The pending recordings of the last drain, assembled once at start. */
    finaliseAtStart: fromPromise<void>(async () => notProvided('finaliseAtStart')()),
    /** Renews this instance's claims; never rejects (a failure is `reached: false`). */
    renewClaims: fromPromise<RenewalOutcome>(async () => notProvided('renewClaims')()),
    /** Closes what an ended fence stopped, the orphaned sessions of dead instances, pending recordings. */
    sweep: fromPromise<void, SweepInput>(async () => notProvided('sweep')()),
    /** Waits halfway to the claims' expiry, then says where they stand. */
    lateTickWatch: fromPromise<{ claimsAtRisk: boolean }, { expiresInMs: number }>(async () => notProvided('lateTickWatch')()),
    /** Stops the live sessions unsaved, telling their candidates why; resolves with their ids. */
    stopSessions: fromPromise<string[]>(async () => notProvided('stopSessions')()),
    /** Ends the live sessions (graded by the deadline, or cut) and closes the socket. */
    drainSessions: fromPromise<void, DrainInput>(async () => notProvided('drainSessions')()),
    /** The drained sessions' recordings, the claims' release, the catch-up grading, to the deadline. */
    finishDrain: fromPromise<void, DrainInput>(async () => notProvided('finishDrain')()),
    /** How many other instances are alive (their claims not expired) and can take sessions over. */
    otherInstances: fromPromise<number>(async () => notProvided('otherInstances')()),
  },
  actions: {
    tellRenewal: raise(({ event }) => ({ type: 'renewal.done' as const, ...(event as unknown as { output: RenewalOutcome }).output })),
  },
  guards: {
    claimsAtRisk: ({ event }) => (event as { claimsAtRisk?: boolean }).claimsAtRisk === true,
    /** The last renewal reached the store and the claims have not expired (with no renewal waiting: see `tick`). */
    lastRenewalHolds: ({ context, event }) => context.lastRenewal === 'ok' && (event as TickEvent).expiresInMs > 0,
    /** A tick asked for a renewal that has not started yet (it waits behind a renewal or a sweep). */
    renewalQueued: ({ context }) => context.again,
    /** A fence stopped sessions not closed yet (it may have ended in a drain). */
    sessionsFenced: ({ context }) => context.fencedSessions.length > 0,
    renewalReached: ({ event }) => outcome(event).reached,
    renewalFailedAtRisk: ({ event }) => !outcome(event).reached && outcome(event).claimsAtRisk,
    renewalReachedSafe: ({ event }) => outcome(event).reached && !outcome(event).claimsAtRisk,
    watchFoundRisk: ({ event }) => (event as unknown as { output: { claimsAtRisk: boolean } }).output.claimsAtRisk,
  },
}).createMachine({
  id: 't2Instance',
  description: 'One T2 instance: claims renewed in the shared store, fenced when they may expire, drained on shutdown.',
  type: 'parallel',
  context: { lastRenewal: 'ok', again: false, fencedSessions: [], toClose: null, drain: null },
  states: {
    instance: {
      description: 'What this instance may do with its sessions.',
      initial: 'serving',
      states: {
        serving: {
          description: 'Owns its sessions: admits new ones, /readyz says ready.',
          initial: 'steady',
          states: {
            steady: { description: 'The last tick came on time, or its renewal reached the store.' },
            lateTick: {
              description: 'A tick came late with the claims still safe: fences if the renewal is still not done halfway to their expiry.',
              invoke: {
                id: 'lateTickWatch',
                src: 'lateTickWatch',
                input: ({ event }) => ({ expiresInMs: (event as TickEvent).expiresInMs }),
                onDone: [
                  { guard: and(['watchFoundRisk', or(['renewalQueued', stateIn({ sweeper: 'renewing' })])]), target: '#t2Instance.instance.fenced' },
                  { target: 'steady' },
                ],
              },
            },
          },
          on: {
            // Only this tick is late: it renews instead of fencing (a busy loop, not a lost store).
            tick: [
              { guard: and(['claimsAtRisk', 'lastRenewalHolds', not('renewalQueued'), not(stateIn({ sweeper: 'renewing' }))]), target: '.lateTick' },
              { guard: 'claimsAtRisk', target: 'fenced' },
            ],
            'renewal.done': { guard: 'renewalFailedAtRisk', target: 'fenced' },
            stop: { target: 'draining', actions: assign({ drain: ({ event }) => ({ startedAt: event.startedAt, deadlineAt: event.deadlineAt, handOver: false }) }) },
          },
        },
        fenced: {
          description: 'Its claims may have expired: sessions stopped unsaved, admission refused, not ready, until a renewal reaches the store.',
          invoke: {
            id: 'stopSessions',
                src: 'stopSessions',
            onDone: { actions: assign({ fencedSessions: ({ context, event }) => [...new Set([...context.fencedSessions, ...event.output])] }) },
          },
          on: {
            // The sweeper took the sessions to close (`toClose`) on the same renewal.
            'renewal.done': { guard: 'renewalReachedSafe', target: 'serving' },
            stop: { target: 'draining', actions: assign({ drain: ({ event }) => ({ startedAt: event.startedAt, deadlineAt: event.deadlineAt, handOver: false }) }) },
          },
        },
        draining: {
          description: 'Shutting down: no new session, the live ones end (graded by the deadline, or cut) or are handed over.',
          initial: 'peers',
          states: {
            peers: {
              description: 'Are other instances running? Then the live dialogues are handed over to them instead of ended.',
              invoke: {
                id: 'otherInstances',
                src: 'otherInstances',
                onDone: { target: 'sessions', actions: assign({ drain: ({ context, event }) => ({ ...context.drain!, handOver: event.output > 0 }) }) },
                // Not known (the store failed): alone, the sessions end and are graded here.
                onError: { target: 'sessions' },
              },
            },
            sessions: {
              description: 'The live sessions end and the socket closes; renewals go on meanwhile.',
              invoke: {
                id: 'drainSessions',
                src: 'drainSessions',
                input: ({ context }) => context.drain!,
                onDone: { target: 'sweeps', actions: raise({ type: 'sessions.drained' }) },
              },
            },
            sweeps: {
              description: 'No more ticks: waits for the renewal or sweep in progress, and the one asked for after it.',
              always: { guard: stateIn({ sweeper: 'off' }), target: 'finishing' },
            },
            finishing: {
              description: 'The recordings, the claims released, the catch-up grading, to the deadline.',
              invoke: {
                id: 'finishDrain',
                src: 'finishDrain',
                input: ({ context }) => context.drain!,
                onDone: '#t2Instance.instance.stopped',
              },
            },
          },
        },
        stopped: { description: 'Drained: nothing of this instance runs.', type: 'final' },
      },
    },
    ticker: {
      description: 'The renewal period.',
      initial: 'on',
      states: {
        on: {
          description: 'A tick every renewal period (a third of the claims\u2019 lifetime).',
          invoke: { id: 'ticks', src: 'ticks' },
          on: { 'sessions.drained': 'off' },
        },
        off: { description: 'The drain has ended the sessions: no more renewals.', type: 'final' },
      },
    },
    sweeper: {
      description: 'Renewals and sweeps, one at a time.',
      initial: 'startup',
      on: { tick: { guard: stateIn({ ticker: 'on' }), actions: assign({ again: true }) } },
      states: {
        startup: {
          description: 'The recordings the last drain left pending are assembled before the first sweep.',
          invoke: {
            id: 'finaliseAtStart',
                src: 'finaliseAtStart',
            onDone: [{ guard: 'renewalQueued', target: 'renewing', actions: assign({ again: false }) }, { target: 'idle' }],
          },
        },
        idle: {
          description: 'Waiting for the next tick.',
          on: { tick: { guard: stateIn({ ticker: 'on' }), target: 'renewing' } },
          always: { guard: stateIn({ ticker: 'off' }), target: 'off' },
        },
        renewing: {
          description: 'Renewing this instance\u2019s claims in the store.',
          invoke: {
            id: 'renewClaims',
                src: 'renewClaims',
            onDone: [
              {
                guard: and(['renewalReachedSafe', or([stateIn({ instance: 'fenced' }), 'sessionsFenced'])]),
                target: 'sweeping',
                actions: [assign({ lastRenewal: 'ok', toClose: ({ context }) => context.fencedSessions, fencedSessions: [] }), 'tellRenewal'],
              },
              // Reached, not ending a fence: nothing for the instance region to do.
              { guard: 'renewalReached', target: 'sweeping', actions: assign({ lastRenewal: 'ok' }) },
              { guard: 'renewalQueued', target: 'renewing', reenter: true, actions: [assign({ lastRenewal: 'failed', again: false }), 'tellRenewal'] },
              { target: 'idle', actions: [assign({ lastRenewal: 'failed' }), 'tellRenewal'] },
            ],
          },
        },
        sweeping: {
          description: 'Closing what an ended fence stopped and the orphaned sessions of dead instances; assembling pending recordings.',
          invoke: {
            id: 'sweep',
                src: 'sweep',
            input: ({ context }) => ({ closeFenced: context.toClose }),
            onDone: [
              { guard: 'renewalQueued', target: 'renewing', actions: assign({ again: false, toClose: null }) },
              { target: 'idle', actions: assign({ toClose: null }) },
            ],
          },
        },
        off: { description: 'The drain has stopped the ticks and the last sweep is done.', type: 'final' },
      },
    },
  },
});

export type T2InstanceSnapshot = SnapshotFrom<typeof t2InstanceMachine>;

/** Fenced: admission refuses, /readyz says 503, background work stops between items. */
export function isFenced(s: T2InstanceSnapshot): boolean {
  return s.matches({ instance: 'fenced' });
}

/** Draining or stopped: sessions no longer wait for their recordings, background work stops. */
export function isStopping(s: T2InstanceSnapshot): boolean {
  return s.matches({ instance: 'draining' }) || s.matches({ instance: 'stopped' });
}

export function isStopped(s: T2InstanceSnapshot): boolean {
  return s.matches({ instance: 'stopped' });
}
