import { describe, expect, it } from 'vitest';
import type { EventObject } from 'xstate';
import { t2TakeoverMachine, type ElsewhereRow, type TakeoverContext, type TakeoverOutcome } from '../../machines/t2Takeover.js';
import { runModel, type OracleContext } from '../harness/index.js';

/**
 * The takeover decision (machines/t2Takeover.ts) along every generated path, with its store calls
 * controllable. The oracle is the rule of docs/scaling.md ("A live T2 session survives its
 * instance"), written again from the path's events: which calls reach the store, in which order
 * with which inputs, and what the reconnect is answered.
 */

const NOW = 1_000_000;
const GRACE = 30_000;
const row = (over: Partial<ElsewhereRow>): ElsewhereRow => ({ id: 's1', instanceId: 'a', awaySince: null, instanceAlive: false, ...over });
/** The lookups the model is offered, each a case of the rule. */
const LOOKUPS: Record<string, ElsewhereRow[]> = {
  none: [],
  deadInstance: [row({})],
  handedOverWithinGrace: [row({ id: 's2', instanceId: 'b', awaySince: NOW - 1000, instanceAlive: true })],
  awayPastGrace: [row({ awaySince: NOW - GRACE })],
  heldByLiveInstance: [row({ instanceAlive: true })],
  // The newest row decides, older ones are not looked at.
  newestBusyOlderDead: [row({ id: 's3', instanceAlive: true }), row({ id: 's4', instanceId: 'c' })],
};

type E = EventObject & { output?: unknown };

interface Expected {
  calls: string[];
  outcome: TakeoverOutcome | null;
}

/** The rule, from the events alone. */
function expected(events: E[]): Expected {
  const calls = ['acquire'];
  type Phase = 'claim' | 'find' | 'take' | 'release' | 'done';
  let phase = 'claim' as Phase;
  let outcome: TakeoverOutcome | null = null;
  let afterRelease: 'retry' | 'failed' = 'retry';
  let taking: ElsewhereRow | undefined;
  const release = (then: 'retry' | 'failed') => {
    phase = 'release';
    afterRelease = then;
    calls.push('release');
  };
  for (const e of events) {
    const t = e.type;
    if (phase === 'claim') {
      if (t === 'xstate.done.actor.acquireCandidate') {
        if ((e.output as { ok: boolean }).ok) {
          phase = 'find';
          calls.push('find');
        } else {
          phase = 'done';
          outcome = { kind: 'retry' };
        }
      } else if (t === 'xstate.error.actor.acquireCandidate') {
        phase = 'done';
        outcome = { kind: 'failed' };
      }
    } else if (phase === 'find') {
      if (t === 'xstate.done.actor.findSessions') {
        const first = (e.output as ElsewhereRow[])[0];
        const withinGrace = first !== undefined && (first.awaySince !== null ? NOW < first.awaySince + GRACE : !first.instanceAlive);
        if (first && withinGrace) {
          taking = first;
          phase = 'take';
          calls.push(`take:${first.id}:${first.instanceId ?? '-'}`);
        } else if (first && first.awaySince === null && first.instanceAlive) release('retry');
        else {
          phase = 'done';
          outcome = { kind: 'admitted' };
        }
      } else if (t === 'xstate.error.actor.findSessions') release('failed');
    } else if (phase === 'take') {
      if (t === 'xstate.done.actor.takeSession') {
        if (e.output === true) {
          phase = 'done';
          outcome = { kind: 'takenOver', sessionId: taking!.id };
        } else release('retry');
      } else if (t === 'xstate.error.actor.takeSession') release('failed');
    } else if (phase === 'release') {
      if (t === 'xstate.done.actor.releaseCandidate' || t === 'xstate.error.actor.releaseCandidate') {
        phase = 'done';
        outcome = { kind: afterRelease };
      }
    }
  }
  return { calls, outcome };
}

function oracle({ events, controls, snapshot, check }: OracleContext): void {
  const want = expected(events as E[]);
  const names: Record<string, (input: unknown) => string> = {
    acquireCandidate: () => 'acquire',
    findSessions: () => 'find',
    takeSession: (input) => {
      const i = input as { id: string; from: string | null };
      return `take:${i.id}:${i.from ?? '-'}`;
    },
    releaseCandidate: () => 'release',
  };
  const got = controls.invocations.filter((i) => i.src in names).map((i) => names[i.src]!(i.input));
  check(JSON.stringify(got) === JSON.stringify(want.calls), `calls ${want.calls.join(' ')}, got ${got.join(' ')}`);
  const done = snapshot.status === 'done';
  check(done === (want.outcome !== null), `the decision is ${want.outcome ? '' : 'not '}made`);
  if (want.outcome) check(JSON.stringify(snapshot.output) === JSON.stringify(want.outcome), `answer ${JSON.stringify(want.outcome)}, got ${JSON.stringify(snapshot.output)}`);
}

describe('t2Takeover model', () => {
  it('takes over, admits, or asks the page to retry along every generated path, checked by an oracle', async () => {
    const { failures, coverage } = await runModel({
      name: 't2Takeover',
      machine: t2TakeoverMachine,
      variants: [{ name: 'grace 30 s', input: () => ({ now: NOW, graceMs: GRACE }) }],
      events: {
        'xstate.done.actor.acquireCandidate': [{ output: { ok: true } }, { output: { ok: false } }],
        'xstate.error.actor.acquireCandidate': [{ error: new Error('store unreachable') }],
        'xstate.done.actor.findSessions': Object.values(LOOKUPS).map((output) => ({ output })),
        'xstate.error.actor.findSessions': [{ error: new Error('store unreachable') }],
        'xstate.done.actor.takeSession': [{ output: true }, { output: false }],
        'xstate.error.actor.takeSession': [{ error: new Error('store unreachable') }],
        'xstate.done.actor.releaseCandidate': [{ output: undefined }],
        'xstate.error.actor.releaseCandidate': [{ error: new Error('store unreachable') }],
      },
      serializeState: (s) => JSON.stringify({ v: s.value, c: s.context as TakeoverContext }),
      oracle,
      scenarios: [
        {
          // Two instances race for one row: the loser lets the candidate go and the page retries.
          name: 'the race for the row is lost: the claim is let go, the page retries',
          events: [
            { type: 'xstate.done.actor.acquireCandidate', output: { ok: true } },
            { type: 'xstate.done.actor.findSessions', output: LOOKUPS.deadInstance },
            { type: 'xstate.done.actor.takeSession', output: false },
            { type: 'xstate.done.actor.releaseCandidate', output: undefined },
          ],
        },
        {
          // Grace over: the row is not this reconnect's (the sweep closes it), the reconnect is a plain one.
          name: 'a row past its grace is not taken',
          events: [
            { type: 'xstate.done.actor.acquireCandidate', output: { ok: true } },
            { type: 'xstate.done.actor.findSessions', output: LOOKUPS.awayPastGrace },
          ],
        },
      ],
    });
    expect(failures).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
    expect(coverage.states.uncovered ?? []).toEqual([]);
    expect(coverage.oracleChecks).toBeGreaterThan(0);
  });
});
