/**
 * llmCall + the real OpenAI and Anthropic adapters + their wire fakes: the retry policy seen from
 * the wire. Time is a SimulatedClock: backoffs advance only when the test says so.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock, type InspectionEvent } from 'xstate';
import { runLlmCall } from '../../actors/llm/llmWiring.js';
import { createAnthropicProvider } from '../../actors/llm/anthropic.js';
import { createOpenAIProvider } from '../../actors/llm/openai.js';
import type { LlmCallInput } from '../../machines/llmCall.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropicFake.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openaiFake.js';

let openai: OpenAIFake;
let anthropic: AnthropicFake;
beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startOpenAIFake(), startAnthropicFake()]);
});
afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close()]);
});
beforeEach(() => {
  openai.reset();
  anthropic.reset();
});

const input = (model: string): LlmCallInput => ({
  request: { model, purpose: 'skull', messages: [{ role: 'user', content: 'Bonjour' }] },
  maxRetries: 3,
  attemptTimeoutMs: 12_000,
  backoffBaseMs: 200,
  retryAfterCapMs: 10_000,
  random: () => 0.5,
});

/** Resolves with the planned wait each time the root llmCall actor enters backingOff. */
function backoffWatcher(): { inspect: (ev: InspectionEvent) => void; next: () => Promise<number> } {
  const waits: number[] = [];
  let wake: (() => void) | undefined;
  return {
    inspect(ev) {
      if (ev.type !== '@xstate.snapshot' || ev.actorRef.sessionId !== ev.rootId) return;
      const snap = ev.snapshot as { value?: unknown; context?: { backoffMs?: number } };
      if (snap.value === 'backingOff' && typeof snap.context?.backoffMs === 'number') {
        waits.push(snap.context.backoffMs);
        wake?.();
      }
    },
    async next() {
      while (waits.length === 0) await new Promise<void>((resolve) => { wake = resolve; });
      return waits.shift() as number;
    },
  };
}

describe('llmCall over the real adapters', () => {
  it('OpenAI: 429 with retry-after: 2 then success → one result, after exactly a 2 s backoff', async () => {
    openai.script({ status: 429, headers: { 'retry-after': '2' } }, { text: 'Salut !', usage: { prompt_tokens: 9, completion_tokens: 2 } });
    const clock = new SimulatedClock();
    const watch = backoffWatcher();
    const provider = createOpenAIProvider({ apiKey: 'sk-x', baseURL: `${openai.url}/v1` });
    const done = runLlmCall(provider, input('gpt-5-mini'), { clock, inspect: watch.inspect });
    expect(await watch.next()).toBe(2000);
    clock.increment(1999);
    expect(openai.requests).toHaveLength(1);
    clock.increment(1);
    const out = await done;
    expect(out).toMatchObject({ ok: true, attempts: 2, result: { text: 'Salut !', provider: 'openai' } });
    expect(openai.requests).toHaveLength(2);
  });

  it('Anthropic: 529, 503, dropped socket, 500 → typed failure after 3 retries (4 requests)', async () => {
    anthropic.script({ status: 529 }, { status: 503 }, { drop: true }, { status: 500 });
    const clock = new SimulatedClock();
    const watch = backoffWatcher();
    const provider = createAnthropicProvider({ apiKey: 'sk-ant-x', baseURL: anthropic.url });
    const done = runLlmCall(provider, input('claude-haiku-5-5'), { clock, inspect: watch.inspect });
    // base 200 ms doubled each retry, plus jitter 100 + floor(0.5 * 301) = 250 ms.
    for (const expected of [450, 650, 1050]) {
      expect(await watch.next()).toBe(expected);
      clock.increment(expected);
    }
    const out = await done;
    expect(out).toMatchObject({ ok: false, attempts: 4, error: { kind: 'server', status: 500 } });
    expect(anthropic.requests).toHaveLength(4);
  });

  it('a non-transient 400 fails at once, no retry', async () => {
    openai.script({ status: 400 });
    const provider = createOpenAIProvider({ apiKey: 'sk-x', baseURL: `${openai.url}/v1` });
    const out = await runLlmCall(provider, input('gpt-5-mini'), { clock: new SimulatedClock() });
    expect(out).toMatchObject({ ok: false, attempts: 1, error: { kind: 'bad_request', status: 400 } });
    expect(openai.requests).toHaveLength(1);
  });

  it('aborting the call closes the HTTP request in flight', async () => {
    openai.script({ delayMs: 30_000 });
    const provider = createOpenAIProvider({ apiKey: 'sk-x', baseURL: `${openai.url}/v1` });
    const ac = new AbortController();
    const done = runLlmCall(provider, input('gpt-5-mini'), { clock: new SimulatedClock(), signal: ac.signal });
    await openai.waitForRequests(1);
    ac.abort();
    // The wire side is this file's concern: the provider's HTTP request is closed. (What runLlmCall
    // resolves with on abort belongs to llmCallActor's own tests.)
    expect(await openai.requests[0]?.done).toBe('client-closed');
    expect((await done)?.ok).not.toBe(true);
  });
});
