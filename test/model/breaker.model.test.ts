import { describe, expect, it } from 'vitest';
import { breakerMachine, type BreakerContext } from '../../machines/breaker.js';
import { runModel } from '../harness/index.js';

const failures = (c: unknown) => (c as BreakerContext).pendingExpiries.length;

describe('breaker model', () => {
  it('replays every generated path with the window and cool-down on the simulated clock', async () => {
    const { failures: failed, coverage, paths } = await runModel({
      name: 'breaker',
      machine: breakerMachine,
      variants: [{ name: '3 failures / 1 s, cool-down 500 ms', input: () => ({ failureThreshold: 3, windowMs: 1_000, cooldownMs: 500 }) }],
      events: {
        // An expiry exists only when a failure is inside the window.
        'breaker.expire': (s) => (failures(s.context) > 0 ? [{}] : []),
      },
      // The expiry ids grow forever; the count is what the behaviour depends on.
      serializeState: (s) => JSON.stringify({ value: s.value, failures: failures(s.context) }),
      project: (s) => ({ value: s.value, failures: failures(s.context) }),
      // Failures sent at distinct instants expire at distinct instants, as in real life.
      stepMs: 1,
    });
    expect(failed).toEqual([]);
    expect(paths.length).toBeGreaterThan(5);
    expect(coverage.states.uncovered).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
    // Every expiry was fired by advancing the clock, none injected.
    expect(coverage.injectedAfterEvents).toBe(0);
  });
});
