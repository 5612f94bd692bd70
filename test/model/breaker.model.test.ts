import { describe, expect, it } from 'vitest';
import { createActor, type EventObject } from 'xstate';
import { breakerFailures, breakerMachine, isBreakerOpen, type BreakerContext, type BreakerEvent, type BreakerInput, type BreakerSnapshot } from '../../machines/breaker.js';
import { runModel, type OracleContext } from '../harness/index.js';
import { expectedBreaker, type BreakerCall } from './breakerReference.js';

const failures = (c: unknown) => (c as BreakerContext).pendingExpiries.length;

/** What the callers told the breaker, and when (on the path's simulated clock). */
interface BreakerWorld {
  calls: BreakerCall[];
  now: () => number;
}

/** What a caller reads: open or not (primary or fallback model) and the failures counted (metrics). */
function expectBreaker({ input, world, snapshot, check }: OracleContext): void {
  const { calls, now } = world as BreakerWorld;
  const expected = expectedBreaker(input as BreakerInput, calls, now());
  const s = snapshot as BreakerSnapshot;
  check(isBreakerOpen(s) === expected.open, `at ${now()} ms after ${calls.map((c) => `${c.type}@${c.at}`).join(', ') || 'nothing'} the breaker is ${expected.open ? 'open' : 'closed'}`);
  check(breakerFailures(s) === expected.failures, `at ${now()} ms it counts ${expected.failures} failure(s) in the window, reports ${breakerFailures(s)}`);
}

describe('breaker model', () => {
  it('replays every generated path with the window and cool-down on the simulated clock', async () => {
    const { failures: failed, coverage, paths } = await runModel({
      name: 'breaker',
      machine: breakerMachine,
      variants: [
        { name: '3 failures / 1 s, cool-down 500 ms', input: () => ({ failureThreshold: 3, windowMs: 1_000, cooldownMs: 500 }) },
        // A cool-down longer than the window: expiries armed before the trip fall due while open.
        { name: '2 failures / 1 s, cool-down 2 s', input: () => ({ failureThreshold: 2, windowMs: 1_000, cooldownMs: 2_000 }) },
      ],
      events: {
        // An expiry exists only when a failure is inside the window.
        'breaker.expire': (s) => (failures(s.context) > 0 ? [{}] : []),
      },
      // The expiry ids grow forever; the count is what the behaviour depends on.
      serializeState: (s) => JSON.stringify({ value: s.value, failures: failures(s.context) }),
      project: (s) => ({ value: s.value, failures: failures(s.context) }),
      // Failures sent at distinct instants expire at distinct instants, as in real life.
      stepMs: 1,
      start: ({ machine, input, clock, inspect }) => {
        const actor = createActor(machine, { input, clock, inspect }).start();
        const world: BreakerWorld = { calls: [], now: () => clock.now() };
        return {
          actor,
          world,
          send: (event: EventObject) => {
            world.calls.push({ at: clock.now(), type: event.type });
            actor.send(event as BreakerEvent);
          },
        };
      },
      oracle: expectBreaker,
    });
    expect(failed).toEqual([]);
    expect(paths.length).toBeGreaterThan(5);
    expect(coverage.states.uncovered).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
    // Every expiry was fired by advancing the clock, none injected.
    expect(coverage.injectedAfterEvents).toBe(0);
    expect(coverage.oracleChecks).toBeGreaterThan(0);
  });
});
