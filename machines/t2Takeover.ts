import { assign, fromPromise, setup } from 'xstate';

/**
 * Whether a reconnect (`resume=1`) on this instance takes over a live T2 session another instance
 * held (docs/scaling.md § A live T2 session survives its instance). Run once per such admission, before
 * the socket's session starts:
 *
 *   claimingCandidate → findingSession → takingSession → takenOver
 *                     ↘ retry            ↘ admitted      ↘ releasing → retry
 *
 * - the candidate's claim (one live session per candidate across instances) is taken first: held
 *   by another instance (alive, or dead with its claim not yet expired), the page must try again;
 * - then the candidate's live rows held elsewhere: the newest one is takeable when it awaits a
 *   taker within the grace (`awaySince` set: its instance handed it over, or a sweep saw it
 *   stranded) or its instance is no longer alive; a row whose instance is alive and holds it is
 *   busy (a hand-over under way): try again; a row past the grace, or none, is not this
 *   reconnect's: the session starts as any reconnect (the root resumes a local one, or 4410);
 * - the row is taken in one statement: of two instances racing, exactly one wins; the loser
 *   lets the candidate's claim go and the page tries again (it reaches the winner, or finds the
 *   candidate free).
 *
 * The chart does no I/O: the claim, the lookup, the take and the release are provided at wiring
 * time (actors/t2/takeover.ts).
 */

export interface TakeoverInput {
  /** When the decision is made, on the claims' clock (epoch ms). */
  now: number;
  /** T2_RESUME_GRACE_MS: how long a session awaits a taker. */
  graceMs: number;
}

/** One live row of the candidate held elsewhere, as the lookup read it. */
export interface ElsewhereRow {
  id: string;
  instanceId: string | null;
  /** Epoch ms since when it awaits a taker; null while its instance holds it. */
  awaySince: number | null;
  /** Its instance's claim has not expired. */
  instanceAlive: boolean;
}

export type TakeoverOutcome =
  /** This instance now holds the session `sessionId`: rebuild it, then resume the page. */
  | { kind: 'takenOver'; sessionId: string }
  /** Nothing to take over: the session starts as any reconnect would (the candidate's claim is held). */
  | { kind: 'admitted' }
  /** Not now (claim held elsewhere, hand-over under way, race lost): the page reconnects again. */
  | { kind: 'retry' }
  /** The store failed: the page gets the store's error. */
  | { kind: 'failed' };

export interface TakeoverContext extends TakeoverInput {
  row: ElsewhereRow | null;
  outcome: TakeoverOutcome | null;
  /** What to answer once the candidate's claim is let go. */
  afterRelease: 'retry' | 'failed';
}

type Done<T> = { output?: T };

const newest = (rows: readonly ElsewhereRow[] | undefined): ElsewhereRow | undefined => rows?.[0];

/** Awaits a taker and the grace has not run out, or its instance is gone (no sweep marked it yet). */
function takeable(row: ElsewhereRow, now: number, graceMs: number): boolean {
  if (row.awaySince !== null) return now < row.awaySince + graceMs;
  return !row.instanceAlive;
}

export const t2TakeoverMachine = setup({
  types: {
    context: {} as TakeoverContext,
    input: {} as TakeoverInput,
    output: {} as TakeoverOutcome,
  },
  actors: {
    acquireCandidate: fromPromise<{ ok: boolean }>(async () => {
      throw new Error('acquireCandidate not provided');
    }),
    findSessions: fromPromise<ElsewhereRow[]>(async () => {
      throw new Error('findSessions not provided');
    }),
    takeSession: fromPromise<boolean, { id: string; from: string | null }>(async () => {
      throw new Error('takeSession not provided');
    }),
    releaseCandidate: fromPromise<void>(async () => {
      throw new Error('releaseCandidate not provided');
    }),
  },
  guards: {
    acquired: ({ event }) => (event as Done<{ ok: boolean }>).output?.ok === true,
    takeable: ({ context, event }) => {
      const row = newest((event as Done<ElsewhereRow[]>).output);
      return row !== undefined && takeable(row, context.now, context.graceMs);
    },
    busy: ({ event }) => {
      const row = newest((event as Done<ElsewhereRow[]>).output);
      return row !== undefined && row.awaySince === null && row.instanceAlive;
    },
    won: ({ event }) => (event as Done<boolean>).output === true,
  },
}).createMachine({
  id: 't2Takeover',
  description: 'Decides whether a reconnect takes over a live session another instance held, and claims it.',
  context: ({ input }) => ({ ...input, row: null, outcome: null, afterRelease: 'retry' }),
  initial: 'claimingCandidate',
  output: ({ context }) => context.outcome ?? { kind: 'failed' },
  states: {
    claimingCandidate: {
      description: 'Takes the candidate’s claim: held by another instance, the page must try again.',
      invoke: {
        id: 'acquireCandidate',
        src: 'acquireCandidate',
        onDone: [{ guard: 'acquired', target: 'findingSession' }, { target: 'retry' }],
        onError: { target: 'failed' },
      },
    },
    findingSession: {
      description: 'Reads the candidate’s live sessions held elsewhere and judges the newest.',
      invoke: {
        id: 'findSessions',
        src: 'findSessions',
        onDone: [
          { guard: 'takeable', target: 'takingSession', actions: assign({ row: ({ event }) => event.output[0] ?? null }) },
          // Its instance is alive and still holds it: a hand-over under way.
          { guard: 'busy', target: 'releasing', actions: assign({ afterRelease: 'retry' }) },
          { target: 'admitted' },
        ],
        onError: { target: 'releasing', actions: assign({ afterRelease: 'failed' }) },
      },
    },
    takingSession: {
      description: 'Takes the session in one statement; another instance may win the race.',
      invoke: {
        id: 'takeSession',
        src: 'takeSession',
        input: ({ context }) => ({ id: context.row?.id ?? '', from: context.row?.instanceId ?? null }),
        onDone: [
          { guard: 'won', target: 'takenOver' },
          { target: 'releasing', actions: assign({ afterRelease: 'retry' }) },
        ],
        onError: { target: 'releasing', actions: assign({ afterRelease: 'failed' }) },
      },
    },
    releasing: {
      description: 'Lets the candidate’s claim go: the instance that holds the session, or the next try, takes it.',
      invoke: {
        id: 'releaseCandidate',
        src: 'releaseCandidate',
        onDone: [{ guard: ({ context }) => context.afterRelease === 'failed', target: 'failed' }, { target: 'retry' }],
        // A release that fails leaves the claim to expire: the answer is the same.
        onError: [{ guard: ({ context }) => context.afterRelease === 'failed', target: 'failed' }, { target: 'retry' }],
      },
    },
    takenOver: {
      type: 'final',
      description: 'This instance holds the session: it is rebuilt from its row and the page resumed.',
      entry: assign({ outcome: ({ context }) => ({ kind: 'takenOver' as const, sessionId: context.row?.id ?? '' }) }),
    },
    admitted: {
      type: 'final',
      description: 'Nothing to take over: the session starts as any reconnect would.',
      entry: assign({ outcome: { kind: 'admitted' } }),
    },
    retry: {
      type: 'final',
      description: 'Not now: the page reconnects again (RECONNECT).',
      entry: assign({ outcome: { kind: 'retry' } }),
    },
    failed: {
      type: 'final',
      description: 'The store failed: the page is told so.',
      entry: assign({ outcome: { kind: 'failed' } }),
    },
  },
});
