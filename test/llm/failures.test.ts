/**
 * Every failure mode, for each real provider, through its real SDK and its wire fake: the adapter
 * throws one typed LlmError (never a raw SDK error, never a crash), and the SDK does not retry.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../actors/llm/anthropic.js';
import { createGeminiProvider } from '../../actors/llm/gemini.js';
import { createOpenAIProvider } from '../../actors/llm/openai.js';
import { LlmError, type GenerateRequest, type LlmProvider } from '../../machines/llmPort.js';
import type { CommonReply, WireFake } from '../fakes/base.js';
import { startAnthropicFake } from '../fakes/anthropicFake.js';
import { startGeminiFake } from '../fakes/geminiFake.js';
import { startOpenAIFake } from '../fakes/openaiFake.js';

interface Case {
  name: string;
  start: () => Promise<WireFake<{ text?: string }>>;
  make: (url: string) => LlmProvider;
  model: string;
}

const CASES: Case[] = [
  { name: 'openai', start: () => startOpenAIFake(), make: (url) => createOpenAIProvider({ apiKey: 'sk-x', baseURL: `${url}/v1` }), model: 'gpt-5-mini' },
  { name: 'anthropic', start: () => startAnthropicFake(), make: (url) => createAnthropicProvider({ apiKey: 'sk-ant-x', baseURL: url }), model: 'claude-haiku-5-5' },
  { name: 'gemini', start: () => startGeminiFake(), make: (url) => createGeminiProvider({ apiKey: 'g-x', baseUrl: url }), model: 'gemini-2.5-flash' },
];

async function failure(p: LlmProvider, req: GenerateRequest): Promise<LlmError> {
  const err = await p.generate(req).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LlmError);
  return err as LlmError;
}

describe.each(CASES)('$name adapter failures', (c) => {
  let fake: WireFake<{ text?: string }>;
  let provider: LlmProvider;
  const req = (extra: Partial<GenerateRequest> = {}): GenerateRequest => ({ model: c.model, messages: [{ role: 'user', content: 'Salut' }], ...extra });
  const script = (...r: Array<CommonReply & { text?: string }>): void => fake.script(...r);

  beforeAll(async () => {
    fake = await c.start();
    provider = c.make(fake.url);
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('429 with retry-after (seconds) → rate_limited, retryAfterMs, one request only', async () => {
    script({ status: 429, headers: { 'retry-after': '2' } });
    const err = await failure(provider, req());
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 2000, transient: true });
    expect(fake.requests).toHaveLength(1);
  });

  it('429 with retry-after-ms → retryAfterMs in ms', async () => {
    script({ status: 429, headers: { 'retry-after-ms': '150', 'retry-after': '9' } });
    expect(await failure(provider, req())).toMatchObject({ kind: 'rate_limited', retryAfterMs: 150 });
  });

  it('503 → server (transient); 401 → auth; 400 → bad_request (not transient)', async () => {
    script({ status: 503 }, { status: 401 }, { status: 400 });
    expect(await failure(provider, req())).toMatchObject({ kind: 'server', status: 503, transient: true });
    expect(await failure(provider, req())).toMatchObject({ kind: 'auth', status: 401, transient: false });
    expect(await failure(provider, req())).toMatchObject({ kind: 'bad_request', status: 400, transient: false });
    expect(fake.requests).toHaveLength(3);
  });

  it('malformed JSON → malformed, and the next call still works', async () => {
    script({ raw: '{"choices": [{"message": ' }, { raw: '<html>proxy error</html>' });
    expect(await failure(provider, req())).toMatchObject({ kind: 'malformed', transient: false });
    expect(await failure(provider, req())).toMatchObject({ kind: 'malformed' });
    const ok = await provider.generate(req());
    expect(ok.text).toBe('ok');
  });

  it('a 200 with a JSON body of the wrong shape → malformed', async () => {
    script({ body: { hello: 'world' } });
    expect(await failure(provider, req())).toMatchObject({ kind: 'malformed' });
  });

  it('socket dropped before any byte → network (transient)', async () => {
    script({ drop: true });
    expect(await failure(provider, req())).toMatchObject({ kind: 'network', transient: true });
    expect(await fake.requests[0]?.done).toBe('dropped');
  });

  it('socket dropped in the middle of the body → network (transient)', async () => {
    script({ drop: 'mid-body' });
    expect(await failure(provider, req())).toMatchObject({ kind: 'network', transient: true });
  });

  it('socket dropped mid-stream → network (streaming)', async () => {
    script({ drop: 'mid-body', text: 'un deux trois quatre' });
    expect(await failure(provider, req({ onDelta: () => undefined }))).toMatchObject({ kind: 'network' });
  });

  it('abort → aborted, and the fake sees the connection close', async () => {
    script({ delayMs: 10_000 });
    const ac = new AbortController();
    const pending = failure(provider, req({ signal: ac.signal }));
    await fake.waitForRequests(1);
    ac.abort();
    expect(await pending).toMatchObject({ kind: 'aborted', transient: false });
    expect(await fake.requests[0]?.done).toBe('client-closed');
    expect(fake.requests[0]?.clientClosed).toBe(true);
  });

  it('abort while streaming → aborted, connection closed', async () => {
    script({ text: 'a b c d e f', stallBeforeLast: 2 });
    const ac = new AbortController();
    const deltas: string[] = [];
    const pending = failure(provider, req({ signal: ac.signal, onDelta: (d) => { deltas.push(d); ac.abort(); } }));
    expect(await pending).toMatchObject({ kind: 'aborted' });
    expect(deltas.length).toBeGreaterThan(0);
    expect(await fake.requests[0]?.done).toBe('client-closed');
  });

  it('timeoutMs → timeout (transient), the request is cut', async () => {
    script({ delayMs: 10_000 });
    // 400 ms, not 50: under a loaded CI the connection alone can take longer than 50 ms, and the
    // timeout then fires before the request reaches the fake (requests[0] undefined: a flake).
    expect(await failure(provider, req({ timeoutMs: 400 }))).toMatchObject({ kind: 'timeout', transient: true });
    expect(fake.requests).toHaveLength(1);
    expect(await fake.requests[0]?.done).toBe('client-closed');
  });

  it('a signal aborted with a TimeoutError reason (llmCall deadline) → timeout', async () => {
    script({ delayMs: 10_000 });
    expect(await failure(provider, req({ signal: AbortSignal.timeout(50) }))).toMatchObject({ kind: 'timeout' });
  });

  it('an already aborted signal → aborted, no request sent', async () => {
    const ac = new AbortController();
    ac.abort();
    expect(await failure(provider, req({ signal: ac.signal }))).toMatchObject({ kind: 'aborted' });
    expect(fake.requests).toHaveLength(0);
  });

  it('connection refused → network', async () => {
    const dead = await c.start();
    const url = dead.url;
    await dead.close();
    expect(await failure(c.make(url), req())).toMatchObject({ kind: 'network' });
  });
});
