import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor } from 'xstate';
import { breakerFailures, breakerMachine, isBreakerOpen } from '../../machines/breaker.js';

const start = (over: Partial<{ failureThreshold: number; windowMs: number; cooldownMs: number }> = {}) => {
  const clock = new SimulatedClock();
  const breaker = createActor(breakerMachine, { clock, input: { failureThreshold: 5, windowMs: 60_000, cooldownMs: 30_000, ...over } }).start();
  const fail = () => breaker.send({ type: 'breaker.failure' });
  return { clock, breaker, fail };
};

describe('breaker', () => {
  it('5 failures within 60 s → open', () => {
    const { clock, breaker, fail } = start();
    for (let i = 0; i < 4; i++) {
      fail();
      clock.increment(14_000);
    }
    expect(isBreakerOpen(breaker.getSnapshot())).toBe(false);
    fail(); // 5th failure, 56 s after the first
    expect(isBreakerOpen(breaker.getSnapshot())).toBe(true);
  });

  it('failures spread beyond the window → stays closed', () => {
    const { clock, breaker, fail } = start();
    for (let i = 0; i < 12; i++) {
      fail();
      clock.increment(15_001); // the failure 4 back has expired when the next one comes
      expect(breakerFailures(breaker.getSnapshot())).toBeLessThanOrEqual(4);
    }
    expect(isBreakerOpen(breaker.getSnapshot())).toBe(false);
  });

  it('a failure leaves the window exactly windowMs after it happened', () => {
    const { clock, breaker, fail } = start();
    fail();
    clock.increment(59_999);
    expect(breakerFailures(breaker.getSnapshot())).toBe(1);
    clock.increment(1);
    expect(breakerFailures(breaker.getSnapshot())).toBe(0);
  });

  it('open → closed again after the cool-down, with a fresh window', () => {
    const { clock, breaker, fail } = start();
    for (let i = 0; i < 5; i++) fail();
    expect(isBreakerOpen(breaker.getSnapshot())).toBe(true);
    fail(); // ignored while open: does not extend the cool-down
    clock.increment(29_999);
    expect(isBreakerOpen(breaker.getSnapshot())).toBe(true);
    clock.increment(1);
    expect(isBreakerOpen(breaker.getSnapshot())).toBe(false);
    expect(breakerFailures(breaker.getSnapshot())).toBe(0);
    for (let i = 0; i < 4; i++) fail();
    expect(isBreakerOpen(breaker.getSnapshot())).toBe(false);
  });

  it('a success clears the count, and expiries of cleared failures do not forget newer ones', () => {
    const { clock, breaker, fail } = start({ failureThreshold: 3 });
    fail();
    fail();
    breaker.send({ type: 'breaker.success' });
    expect(breakerFailures(breaker.getSnapshot())).toBe(0);
    clock.increment(30_000);
    fail();
    fail();
    clock.increment(30_000); // the cleared failures' expiries would have fired now
    expect(breakerFailures(breaker.getSnapshot())).toBe(2);
    fail();
    expect(isBreakerOpen(breaker.getSnapshot())).toBe(true);
  });
});
