import { describe, expect, it } from 'vitest';
import type { EventObject } from 'xstate';
import { provideT2Instance, startT2Instance, type T2Instance } from '../../actors/t2/t2InstanceWiring.js';
import type { T2InstanceContext } from '../../machines/t2Instance.js';
import { runModel, type OracleContext } from '../harness/index.js';

/**
 * The T2 instance lifecycle (machines/t2Instance.ts) along every generated path, replayed against
 * the wired chart (`provideT2Instance`, started by `startT2Instance` as the surface does) with
 * its actors controllable. The oracle is the rules of docs/scaling.md ("Fencing", "Drain"),
 * written again from the path's events: what admission, /readyz and the recordings read
 * (`fenced()`, `stopping()`), and which calls reach the boundary with which inputs.
 */

const notUsed = (): never => {
  throw new Error('replaced by a controllable actor');
};
const wired = provideT2Instance({
  claims: { renewEveryMs: 1000, fenced: () => false, expiresInMs: () => 3000, renew: notUsed },
  interrupt: notUsed,
  finaliseAtStart: notUsed,
  sweep: notUsed,
  drainSessions: notUsed,
  otherInstances: notUsed,
  finishDrain: notUsed,
  warn: () => {},
});

const STOPPED_IDS = ['s1', 's2'];

interface Expected {
  fenced: boolean;
  stopping: boolean;
  stopped: boolean;
  /** Calls that reached the boundary, in order: `renew`, `sweep:<ids>|-`, `stopSessions`, `peers`, `drain`, `finish`, `watch`. */
  calls: string[];
  /** The drain hands the live dialogues over (other instances alive). */
  handOver: boolean;
}

type E = EventObject & { output?: unknown; claimsAtRisk?: boolean; expiresInMs?: number };

/**
 * The rules, from the events alone. Renewals and sweeps run one at a time; a tick during one asks
 * for one more after it. A tick with the claims at risk fences, unless only that tick is late
 * (last renewal reached the store, none waiting, claims not expired): then a watch runs, and
 * fences if, halfway to expiry, the claims are at risk and a renewal is still waiting. A renewal
 * that fails with the claims at risk fences; one that reaches the store with the claims safe ends
 * the fence, and the next sweep closes what the fence stopped. A stop drains: the sessions end,
 * ticks stop, the running renewal or sweep (and the one asked for) finish, then the rest.
 */
function expected(events: E[]): Expected {
  type Inst = 'serving' | 'late' | 'fenced' | 'peers' | 'drainSessions' | 'settle' | 'finishing' | 'stopped';
  type Sweeper = 'startup' | 'idle' | 'renewing' | 'sweeping';
  let inst = 'serving' as Inst;
  let sw = 'startup' as Sweeper;
  let again = false;
  let handOver = false;
  let lastOk = true;
  let ticking = true;
  let fencedIds: string[] = [];
  let toClose: string[] | null = null;
  const calls: string[] = ['finaliseAtStart'];
  const enterFenced = () => {
    inst = 'fenced';
    calls.push('stopSessions');
  };
  const startRenewal = () => {
    sw = 'renewing';
    calls.push('renew');
  };
  const startSweep = () => {
    sw = 'sweeping';
    calls.push(`sweep:${toClose ? toClose.join(',') : '-'}`);
  };
  const next = () => {
    if (again) {
      again = false;
      startRenewal();
    } else sw = 'idle';
  };
  const settle = () => {
    if (inst === 'settle' && sw === 'idle' && !again) {
      inst = 'finishing';
      calls.push('finish');
    }
  };
  const draining = () => inst === 'peers' || inst === 'drainSessions' || inst === 'settle' || inst === 'finishing' || inst === 'stopped';
  for (const e of events) {
    const out = e.output as { reached?: boolean; claimsAtRisk?: boolean } | string[] | undefined;
    switch (e.type) {
      case 'tick': {
        if (!ticking) break;
        const pending = sw === 'renewing' || again;
        if ((inst === 'serving' || inst === 'late') && e.claimsAtRisk) {
          if (lastOk && !pending && (e.expiresInMs ?? 0) > 0) {
            inst = 'late';
            calls.push('watch');
          } else enterFenced();
        }
        if (sw === 'idle') startRenewal();
        else again = true;
        break;
      }
      case 'xstate.done.actor.lateTickWatch': {
        const pending = sw === 'renewing' || again;
        inst = (out as { claimsAtRisk: boolean }).claimsAtRisk && pending ? 'fenced' : 'serving';
        if (inst === 'fenced') calls.push('stopSessions');
        break;
      }
      case 'xstate.done.actor.stopSessions':
        fencedIds = [...new Set([...fencedIds, ...(out as string[])])];
        break;
      case 'xstate.done.actor.finaliseAtStart':
        next();
        break;
      case 'xstate.done.actor.renewClaims': {
        const r = out as { reached: boolean; claimsAtRisk: boolean };
        lastOk = r.reached;
        const wasFenced = inst === 'fenced';
        if (r.reached && !r.claimsAtRisk && (wasFenced || fencedIds.length > 0)) {
          toClose = fencedIds;
          fencedIds = [];
        }
        if (r.reached) startSweep();
        else next();
        if ((inst === 'serving' || inst === 'late') && !r.reached && r.claimsAtRisk) enterFenced();
        else if (wasFenced && r.reached && !r.claimsAtRisk) inst = 'serving';
        break;
      }
      case 'xstate.done.actor.sweep':
        toClose = null;
        next();
        break;
      case 'stop':
        if (inst === 'serving' || inst === 'late' || inst === 'fenced') {
          inst = 'peers';
          calls.push('peers');
        }
        break;
      // Other instances alive: the live dialogues are handed over; none, or not known: drained here.
      case 'xstate.done.actor.otherInstances':
      case 'xstate.error.actor.otherInstances':
        if (inst === 'peers') {
          inst = 'drainSessions';
          handOver = e.type.startsWith('xstate.done') && (e.output as number) > 0;
          calls.push('drain');
        }
        break;
      case 'xstate.done.actor.drainSessions':
        ticking = false;
        inst = 'settle';
        break;
      case 'xstate.done.actor.finishDrain':
        inst = 'stopped';
        break;
    }
    settle();
  }
  return { fenced: inst === 'fenced', stopping: draining(), stopped: inst === 'stopped', calls, handOver };
}

interface World {
  instance: T2Instance;
}

function oracle({ events, world, controls, check }: OracleContext): void {
  const { instance } = world as World;
  const want = expected(events as E[]);
  check(instance.fenced() === want.fenced, `fenced() is ${want.fenced} (admission refuses, /readyz 503)`);
  check(instance.stopping() === want.stopping, `stopping() is ${want.stopping} (sessions no longer wait for their recordings)`);
  const names: Record<string, (input: unknown) => string> = {
    finaliseAtStart: () => 'finaliseAtStart',
    renewClaims: () => 'renew',
    sweep: (input) => `sweep:${(input as { closeFenced: string[] | null }).closeFenced?.join(',') ?? '-'}`,
    stopSessions: () => 'stopSessions',
    drainSessions: () => 'drain',
    otherInstances: () => 'peers',
    finishDrain: () => 'finish',
    lateTickWatch: () => 'watch',
  };
  const got = controls.invocations.filter((i) => i.src in names).map((i) => names[i.src]!(i.input));
  check(JSON.stringify(got) === JSON.stringify(want.calls), `calls ${want.calls.join(' ')}, got ${got.join(' ')}`);
  const drains = controls.invocations.filter((i) => i.src === 'drainSessions' || i.src === 'finishDrain');
  check(
    drains.every((i) => JSON.stringify(i.input) === JSON.stringify({ startedAt: 5, deadlineAt: 10_000, handOver: want.handOver })),
    `the drain gets the stop’s start and deadline, and hands the dialogues over: ${String(want.handOver)}`,
  );
}

describe('t2Instance model', () => {
  it('fences, unfences, sweeps and drains along every generated path, checked by an oracle', async () => {
    const { failures, coverage } = await runModel({
      name: 't2Instance',
      machine: wired,
      variants: [{ name: 'one instance', input: () => undefined }],
      events: {
        tick: [
          { claimsAtRisk: false, expiresInMs: 2500 },
          { claimsAtRisk: true, expiresInMs: 500 },
          { claimsAtRisk: true, expiresInMs: 0 },
        ],
        stop: [{ startedAt: 5, deadlineAt: 10_000 }],
        'xstate.done.actor.finaliseAtStart': [{ output: undefined }],
        'xstate.done.actor.renewClaims': [
          { output: { reached: true, claimsAtRisk: false } },
          { output: { reached: false, claimsAtRisk: true } },
          { output: { reached: false, claimsAtRisk: false } },
        ],
        'xstate.done.actor.sweep': [{ output: undefined }],
        'xstate.done.actor.lateTickWatch': [{ output: { claimsAtRisk: true } }, { output: { claimsAtRisk: false } }],
        // Once per fence: the invocation stays in `fenced` after it resolved.
        'xstate.done.actor.stopSessions': (s) => ((s.context as T2InstanceContext).fencedSessions.length > 0 ? [] : [{ output: STOPPED_IDS }]),
        'xstate.done.actor.drainSessions': [{ output: undefined }],
        'xstate.done.actor.otherInstances': [{ output: 0 }, { output: 1 }],
        'xstate.error.actor.otherInstances': [{ error: new Error('store unreachable') }],
        'xstate.done.actor.finishDrain': [{ output: undefined }],
        // Raised inside the chart, never sent from outside.
        'renewal.done': [],
        'sessions.drained': [],
      },
      serializeState: (s) => JSON.stringify({ v: s.value, c: s.context as T2InstanceContext }),
      simplePaths: false,
      start: ({ machine, clock, inspect, onCleanup }) => {
        const instance = startT2Instance(machine, { clock, inspect });
        onCleanup(() => instance.actor.stop());
        return { actor: instance.actor, world: { instance } satisfies World };
      },
      oracle,
      scenarios: [
        {
          // The sweep after the fence closes exactly the sessions the fence stopped.
          name: 'a fence ends: the sessions it stopped are closed by the next sweep',
          events: [
            { type: 'xstate.done.actor.finaliseAtStart', output: undefined },
            { type: 'tick', claimsAtRisk: false, expiresInMs: 2500 },
            { type: 'tick', claimsAtRisk: true, expiresInMs: 0 },
            { type: 'xstate.done.actor.stopSessions', output: STOPPED_IDS },
            { type: 'xstate.done.actor.renewClaims', output: { reached: true, claimsAtRisk: false } },
            { type: 'xstate.done.actor.sweep', output: undefined },
          ],
        },
        {
          // A failed renewal that had one more queued runs it once, then the queue is empty.
          name: 'a failed renewal with one queued: one more renewal, then idle after the sweep',
          events: [
            { type: 'tick', claimsAtRisk: false, expiresInMs: 2500 },
            { type: 'xstate.done.actor.finaliseAtStart', output: undefined },
            { type: 'tick', claimsAtRisk: false, expiresInMs: 2500 },
            { type: 'xstate.done.actor.renewClaims', output: { reached: false, claimsAtRisk: false } },
            { type: 'xstate.done.actor.renewClaims', output: { reached: true, claimsAtRisk: false } },
            { type: 'xstate.done.actor.sweep', output: undefined },
            { type: 'tick', claimsAtRisk: true, expiresInMs: 500 },
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
