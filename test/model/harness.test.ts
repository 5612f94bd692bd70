/**
 * The harness itself: it must see a divergence between model and actor, fire timers with the
 * clock, report what it did not cover, and the reporter must apply unreachable.json.
 */
import { describe, expect, it } from 'vitest';
import { assign, fromPromise, setup } from 'xstate';
import { runModel } from '../harness/index.js';
import type { CoverageFile } from '../harness/modelCoverage.js';
import { judge } from './modelReport.js';

const toy = setup({
  types: { context: {} as { n: number; allowB: boolean }, input: {} as { allowB: boolean }, events: {} as { type: 'go' } | { type: 'reset' } },
  actors: { work: fromPromise<number, void>(async () => 1) },
  guards: { allowB: ({ context }) => context.allowB },
  // Bounded so that the graph is finite.
  actions: { bump: assign({ n: ({ context }) => Math.min(context.n + 1, 2) }) },
  delays: { patience: 250 },
}).createMachine({
  id: 'toy',
  context: ({ input }) => ({ n: 0, allowB: input.allowB }),
  initial: 'idle',
  states: {
    idle: { on: { go: [{ guard: 'allowB', target: 'b' }, { target: 'working' }] } },
    working: {
      invoke: { id: 'work', src: 'work', onDone: { target: 'idle', actions: 'bump' }, onError: 'idle' },
      after: { patience: 'idle' },
    },
    b: { on: { reset: 'idle' } },
  },
});

describe('model harness', () => {
  it('replays done/error/after steps and reports the transitions no variant reached', async () => {
    const { failures, coverage, paths } = await runModel({
      name: 'toy',
      machine: toy,
      variants: [{ name: 'B not allowed', input: () => ({ allowB: false }) }],
      events: { 'xstate.done.actor.work': [{ output: 1 }], 'xstate.error.actor.work': [{ error: new Error('x') }] },
      project: (s) => ({ value: s.value, n: (s.context as { n: number }).n }),
      simplePaths: false,
      print: false,
      write: false,
    });
    expect(failures).toEqual([]);
    expect(paths.map((p) => p.description)).toContain('go → after:patience');
    expect(coverage.injectedAfterEvents).toBe(0);
    expect(coverage.states.uncovered).toEqual(['toy.b']);
    expect(coverage.transitions.uncovered.sort()).toEqual(['toy.b —reset→ toy.idle', 'toy.idle —go [allowB]→ toy.b']);
    expect(coverage.transitions.covered).toBe(coverage.transitions.total - 2);
  });

  it('sees an actor that does not do what the model says (here: wiring that overrides an action)', async () => {
    const miswired = toy.provide({ actions: { bump: assign({ n: ({ context }) => Math.min(context.n + 2, 2) }) } });
    const { failures } = await runModel({
      name: 'toy-miswired',
      // The model comes from `toy`; the replay runs the miswired machine through `start`.
      machine: toy,
      variants: [{ name: 'B allowed', input: () => ({ allowB: true }) }, { name: 'B not allowed', input: () => ({ allowB: false }) }],
      events: { 'xstate.done.actor.work': [{ output: 1 }] },
      project: (s) => ({ value: s.value, n: (s.context as { n: number }).n }),
      start: async ({ input, clock, inspect, controls }) => {
        const { createActor } = await import('xstate');
        const machine = miswired.provide({ actors: controls.actors(['work']) });
        return { actor: createActor(machine, { input, clock, inspect }).start() };
      },
      print: false,
      write: false,
    });
    expect(failures.length).toBeGreaterThan(0);
    expect(failures[0]!.message).toMatch(/expected .*"n":1.*got .*"n":2/);
  });

  it('names a machine that mutates its context in place instead of failing every replay', async () => {
    const mutating = setup({ types: { context: {} as { stats: { hits: number } }, events: {} as { type: 'hit' } } }).createMachine({
      id: 'mutating',
      context: () => ({ stats: { hits: 0 } }),
      initial: 'idle',
      states: {
        idle: {
          on: {
            hit: {
              target: 'hit',
              actions: assign({
                stats: ({ context }) => {
                  context.stats.hits++; // the bug: the previous snapshot's object changes
                  return context.stats;
                },
              }),
            },
          },
        },
        hit: {},
      },
    });
    await expect(runModel({ name: 'mutating', machine: mutating, variants: [{ name: 'x', input: () => undefined }], print: false, write: false })).rejects.toThrow(
      /mutates context in place/,
    );
  });

  it('the reporter excuses only listed transitions, flags stale entries and machines with no oracle check', () => {
    const file = (uncovered: string[], oracleChecks = 12): CoverageFile => ({
      machine: 'm',
      runId: 'r',
      variants: [],
      paths: { shortest: 1, simple: 0, transition: 0, replayed: 1, failed: 0 },
      injectedAfterEvents: 0,
      oracleChecks,
      states: { total: 1, covered: 1, uncovered: [] },
      transitions: { total: 3, covered: 3 - uncovered.length, uncovered },
      contributions: {},
    });
    const [excused] = judge([file(['a —x→ b'])], { m: { 'a —x→ b': 'needs a clock going backwards' } });
    expect(excused).toMatchObject({ ok: true, missing: [], excused: [{ transition: 'a —x→ b' }] });
    const [missing] = judge([file(['a —x→ b', 'a —y→ c'])], { m: { 'a —x→ b': 'reason', 'gone —z→ x': 'reason' } });
    expect(missing).toMatchObject({ ok: false, missing: ['a —y→ c'], stale: ['gone —z→ x'] });
    // Full coverage compared with the chart itself only is not a pass.
    const [selfOnly] = judge([file([], 0)], {});
    expect(selfOnly).toMatchObject({ ok: false, missing: [], noOracle: true });
  });
});
