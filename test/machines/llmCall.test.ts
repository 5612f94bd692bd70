import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor, toPromise } from 'xstate';
import { provideLlmCall, runLlmCall } from '../../actors/llm/llmWiring.js';
import { createMetrics } from '../../core/metrics.js';
import { breakerMachine } from '../../machines/breaker.js';
import type { LlmCallInput } from '../../machines/llmCall.js';
import { JITTER_MAX_MS, JITTER_MIN_MS, backoffDelay } from '../../machines/llmPolicy.js';
import { settle } from '../harness/controls.js';
import { errors, request, result } from '../model/fixtures.js';
import { scriptedProvider } from './scripted.js';

const input = (over: Partial<LlmCallInput> = {}): LlmCallInput => ({
  request,
  maxRetries: 3,
  attemptTimeoutMs: 12_000,
  backoffBaseMs: 200,
  retryAfterCapMs: 10_000,
  random: () => 0,
  ...over,
});

function start(provider: ReturnType<typeof scriptedProvider>, inp: LlmCallInput, metrics?: ReturnType<typeof createMetrics>) {
  const clock = new SimulatedClock();
  const actor = createActor(provideLlmCall(provider, metrics ? { metrics } : {}), { clock, input: inp }).start();
  return { clock, actor, done: toPromise(actor) };
}

describe('llmCall', () => {
  it('429 with retry-after then success → one result, after exactly the retry-after wait', async () => {
    const provider = scriptedProvider(errors.rateLimited(2_000), result());
    const { clock, actor, done } = start(provider, input());
    await settle();
    expect(actor.getSnapshot().value).toBe('backingOff');
    expect(actor.getSnapshot().context.backoffMs).toBe(2_000);
    clock.increment(1_999);
    await settle();
    expect(provider.calls).toHaveLength(1);
    clock.increment(1);
    const out = await done;
    expect(provider.calls).toHaveLength(2);
    expect(out).toEqual({ ok: true, result: { ...result(), model: 'primary-model' }, attempts: 2, model: 'primary-model' });
  });

  it('retry-after beyond the cap waits the cap', async () => {
    const provider = scriptedProvider(errors.rateLimited(60_000), result());
    const { clock, actor, done } = start(provider, input({ retryAfterCapMs: 5_000 }));
    await settle();
    expect(actor.getSnapshot().context.backoffMs).toBe(5_000);
    clock.increment(5_000);
    expect((await done).ok).toBe(true);
  });

  it('3 transient failures then a 4th → typed failure after exactly 4 attempts, backoff doubling + jitter, retries counted', async () => {
    const metrics = createMetrics({ defaults: false });
    const provider = scriptedProvider(errors.server(), errors.server(), errors.server(), errors.server(), result());
    const { clock, actor, done } = start(provider, input(), metrics);
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      await settle();
      expect(actor.getSnapshot().value).toBe('backingOff');
      waits.push(actor.getSnapshot().context.backoffMs);
      clock.increment(actor.getSnapshot().context.backoffMs);
    }
    const out = await done;
    // random() = 0 → jitter 100 ms: 200·2^r + 100.
    expect(waits).toEqual([300, 500, 900]);
    expect(out).toEqual({ ok: false, error: { kind: 'server', message: 'HTTP 503 from the provider', status: 503 }, attempts: 4, model: 'primary-model' });
    expect(provider.calls).toHaveLength(4);
    const counted = (await metrics.llmRetries.get()).values;
    expect(counted).toEqual([expect.objectContaining({ value: 3, labels: { purpose: 'test', kind: 'server' } })]);
  });

  it('a non-transient error fails at once', async () => {
    const provider = scriptedProvider(errors.badRequest(), result());
    const { done } = start(provider, input());
    const out = await done;
    expect(out).toMatchObject({ ok: false, attempts: 1, error: { kind: 'bad_request', status: 400 } });
    expect(provider.calls).toHaveLength(1);
  });

  it('an error that is not an LlmError is not retried (kind unknown)', async () => {
    const provider = scriptedProvider(new TypeError('cannot read properties of undefined'), result());
    const out = await start(provider, input()).done;
    expect(out).toMatchObject({ ok: false, attempts: 1, error: { kind: 'unknown' } });
  });

  it('timeout → the attempt is aborted (AbortSignal fired) and retried', async () => {
    const provider = scriptedProvider('hang', result());
    const { clock, actor, done } = start(provider, input({ attemptTimeoutMs: 1_000 }));
    await settle();
    const first = provider.calls[0]!.signal!;
    clock.increment(999);
    expect(first.aborted).toBe(false);
    clock.increment(1);
    expect(first.aborted).toBe(true);
    expect(actor.getSnapshot().value).toBe('backingOff');
    expect(actor.getSnapshot().context.lastError?.kind).toBe('timeout');
    clock.increment(actor.getSnapshot().context.backoffMs);
    const out = await done;
    expect(out).toMatchObject({ ok: true, attempts: 2 });
    expect(provider.calls[1]!.signal!.aborted).toBe(false);
  });

  it('an attempt on the fallback model is given up after fallbackAttemptTimeoutMs, one on the primary after attemptTimeoutMs', async () => {
    const provider = scriptedProvider('hang', 'hang', result());
    const clock = new SimulatedClock();
    const breaker = createActor(breakerMachine, { clock, input: { failureThreshold: 1, windowMs: 60_000, cooldownMs: 30_000 } }).start();
    const actor = createActor(provideLlmCall(provider), {
      clock,
      input: input({ attemptTimeoutMs: 12_000, fallbackAttemptTimeoutMs: 6_000, fallbackModel: 'fallback-model', breaker, random: () => 0 }),
    }).start();
    const done = toPromise(actor);
    await settle();
    // Closed breaker: the primary model, the long timeout.
    clock.increment(11_999);
    expect(provider.calls[0]!.signal!.aborted).toBe(false);
    clock.increment(1);
    expect(actor.getSnapshot().context.lastError?.message).toBe('attempt timed out after 12000 ms');
    // Its failure opened the breaker: the retry goes to the fallback model, with the short timeout.
    clock.increment(actor.getSnapshot().context.backoffMs);
    await settle();
    expect(provider.calls[1]!.model).toBe('fallback-model');
    clock.increment(5_999);
    expect(provider.calls[1]!.signal!.aborted).toBe(false);
    clock.increment(1);
    expect(provider.calls[1]!.signal!.aborted).toBe(true);
    expect(actor.getSnapshot().context.lastError?.message).toBe('attempt timed out after 6000 ms');
    // That failure opened the breaker again (threshold 1): the last retry is on the fallback model too.
    clock.increment(actor.getSnapshot().context.backoffMs);
    await settle();
    expect(provider.calls[2]!.model).toBe('fallback-model');
    expect(await done).toMatchObject({ ok: true, attempts: 3, model: 'fallback-model' });
    breaker.stop();
  });

  it('a caller abort stops the call: the request in flight is aborted and the output says aborted', async () => {
    const provider = scriptedProvider('hang');
    const controller = new AbortController();
    const pending = runLlmCall(provider, input(), { clock: new SimulatedClock(), signal: controller.signal });
    await settle();
    controller.abort();
    const out = await pending;
    expect(out).toMatchObject({ ok: false, attempts: 1, error: { kind: 'aborted' } });
    expect(provider.calls[0]!.signal!.aborted).toBe(true);
  });

  it('failed attempts and a success are reported to the breaker; an open breaker sends the next attempt to the fallback model', async () => {
    const clock = new SimulatedClock();
    const breaker = createActor(breakerMachine, { clock, input: { failureThreshold: 2, windowMs: 60_000, cooldownMs: 30_000 } }).start();
    const provider = scriptedProvider(errors.server(), errors.server(), result());
    const actor = createActor(provideLlmCall(provider), { clock, input: input({ breaker, fallbackModel: 'fallback-model' }) }).start();
    const done = toPromise(actor);
    await settle();
    expect(breaker.getSnapshot().context.pendingExpiries).toHaveLength(1);
    clock.increment(actor.getSnapshot().context.backoffMs);
    await settle();
    expect(breaker.getSnapshot().value).toBe('open');
    clock.increment(actor.getSnapshot().context.backoffMs);
    const out = await done;
    expect(provider.calls.map((c) => c.model)).toEqual(['primary-model', 'primary-model', 'fallback-model']);
    expect(out).toMatchObject({ ok: true, attempts: 3, model: 'fallback-model', result: { model: 'fallback-model' } });
  });

  it('a success clears the failures the breaker was counting', async () => {
    const clock = new SimulatedClock();
    const breaker = createActor(breakerMachine, { clock, input: { failureThreshold: 5, windowMs: 60_000, cooldownMs: 30_000 } }).start();
    const provider = scriptedProvider(errors.server(), result());
    const actor = createActor(provideLlmCall(provider), { clock, input: input({ breaker }) }).start();
    await settle();
    expect(breaker.getSnapshot().context.pendingExpiries).toHaveLength(1);
    clock.increment(actor.getSnapshot().context.backoffMs);
    await toPromise(actor);
    expect(breaker.getSnapshot().context.pendingExpiries).toHaveLength(0);
  });

  it('backoff is base·2^retry plus 100–400 ms jitter, whatever random() returns in [0, 1)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 6 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (base, retry, r) => {
        const d = backoffDelay({ backoffBaseMs: base, retryAfterCapMs: 10_000, random: () => r }, retry, undefined);
        expect(d).toBeGreaterThanOrEqual(base * 2 ** retry + JITTER_MIN_MS);
        expect(d).toBeLessThanOrEqual(base * 2 ** retry + JITTER_MAX_MS);
      }),
    );
  });
});
