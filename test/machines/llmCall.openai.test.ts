/**
 * llmCall + breaker + the real OpenAI adapter (official SDK) against the wire fake: the breaker
 * trips on real HTTP failures and the fallback model answers. Backoffs and the cool-down run on a
 * SimulatedClock; the HTTP exchanges are real sockets on 127.0.0.1.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock, createActor, toPromise, waitFor } from 'xstate';
import { provideLlmCall } from '../../actors/llm/llmWiring.js';
import { createOpenAIProvider } from '../../actors/llm/openai.js';
import { breakerMachine, isBreakerOpen, type BreakerRef } from '../../machines/breaker.js';
import type { LlmCallInput, LlmCallOutput } from '../../machines/llmCall.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openaiFake.js';

let fake: OpenAIFake;
beforeAll(async () => {
  fake = await startOpenAIFake();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

/** Runs one call to completion, advancing the simulated clock through each backoff. */
async function call(clock: SimulatedClock, breaker: BreakerRef, provider: ReturnType<typeof createOpenAIProvider>): Promise<LlmCallOutput> {
  const input: LlmCallInput = {
    request: { model: 'gpt-5-mini', purpose: 'skull', messages: [{ role: 'user', content: 'Bonjour' }], maxTokens: 64 },
    maxRetries: 3,
    attemptTimeoutMs: 12_000,
    backoffBaseMs: 200,
    retryAfterCapMs: 10_000,
    fallbackModel: 'gpt-5-nano',
    breaker,
    random: () => 0.5,
  };
  const actor = createActor(provideLlmCall(provider), { clock, input }).start();
  const done = toPromise(actor);
  for (;;) {
    const snap = await waitFor(actor, (s) => s.status === 'done' || s.matches('backingOff'));
    if (snap.status === 'done') return done;
    clock.increment(snap.context.backoffMs);
  }
}

describe('llmCall + breaker over the OpenAI wire fake', () => {
  it('5 failures within 60 s → breaker open → the fallback model answers (usage names it) → closed after the cool-down', async () => {
    const clock = new SimulatedClock();
    const breaker = createActor(breakerMachine, { clock, input: { failureThreshold: 5, windowMs: 60_000, cooldownMs: 30_000 } }).start();
    const provider = createOpenAIProvider({ apiKey: 'sk-test', baseURL: `${fake.url}/v1` });

    // Call 1: four 503s → a typed failure after 4 attempts; 4 failures in the window, still closed.
    fake.script({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
    const first = await call(clock, breaker, provider);
    expect(first).toMatchObject({ ok: false, attempts: 4, error: { kind: 'server', status: 503 } });
    expect(isBreakerOpen(breaker.getSnapshot())).toBe(false);
    expect(clock.now()).toBeLessThan(60_000);

    // Call 2: a 5th 503 opens the breaker; the retry goes to the fallback model, which answers.
    fake.script({ status: 503 }, { text: 'Bonjour, je suis le modèle de secours.' });
    const second = await call(clock, breaker, provider);
    expect(isBreakerOpen(breaker.getSnapshot())).toBe(true);
    expect(second).toMatchObject({ ok: true, attempts: 2, model: 'gpt-5-nano', result: { model: 'gpt-5-nano', provider: 'openai', text: 'Bonjour, je suis le modèle de secours.' } });
    const asked = fake.requests.map((r) => (r.body as { model: string }).model);
    expect(asked).toEqual([...Array(5).fill('gpt-5-mini'), 'gpt-5-nano']);

    // While open, new calls go straight to the fallback model.
    const third = await call(clock, breaker, provider);
    expect(third).toMatchObject({ ok: true, attempts: 1, model: 'gpt-5-nano' });

    // After the cool-down the primary model is used again.
    clock.increment(30_000);
    expect(isBreakerOpen(breaker.getSnapshot())).toBe(false);
    const fourth = await call(clock, breaker, provider);
    expect(fourth).toMatchObject({ ok: true, attempts: 1, model: 'gpt-5-mini', result: { model: 'gpt-5-mini' } });
    expect((fake.requests.at(-1)!.body as { model: string }).model).toBe('gpt-5-mini');
    breaker.stop();
  });

  it('a timed-out attempt closes its HTTP request (the fake sees the client go away) and the retry answers', async () => {
    const clock = new SimulatedClock();
    const provider = createOpenAIProvider({ apiKey: 'sk-test', baseURL: `${fake.url}/v1` });
    fake.script({ delayMs: 20_000, text: 'trop tard' }, { text: 'à temps' });
    const input: LlmCallInput = {
      request: { model: 'gpt-5-mini', messages: [{ role: 'user', content: 'Bonjour' }] },
      maxRetries: 3,
      attemptTimeoutMs: 12_000,
      backoffBaseMs: 200,
      retryAfterCapMs: 10_000,
      random: () => 0,
    };
    const actor = createActor(provideLlmCall(provider), { clock, input }).start();
    const done = toPromise(actor);
    const [first] = await fake.waitForRequests(1);
    clock.increment(12_000);
    await first!.done;
    expect(first!.clientClosed).toBe(true);
    const backingOff = await waitFor(actor, (s) => s.matches('backingOff'));
    expect(backingOff.context.lastError).toMatchObject({ kind: 'timeout' });
    clock.increment(backingOff.context.backoffMs);
    expect(await done).toMatchObject({ ok: true, attempts: 2, result: { text: 'à temps' } });
  });
});
