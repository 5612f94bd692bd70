/** The OpenAI adapter through the real `openai` SDK against the wire fake. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIProvider } from '../../actors/llm/openai.js';
import type { LlmProvider } from '../../machines/llmPort.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openaiFake.js';

let fake: OpenAIFake;
let provider: LlmProvider;
beforeAll(async () => {
  fake = await startOpenAIFake();
  provider = createOpenAIProvider({ apiKey: 'sk-test-secret-123456', baseURL: `${fake.url}/v1` });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const body = (i = 0): Record<string, unknown> => fake.requests[i]?.body as Record<string, unknown>;

describe('openai adapter: parameters per model', () => {
  it('GPT-5 gets max_completion_tokens and reasoning_effort, never temperature/top_p', async () => {
    const r = await provider.generate({
      model: 'gpt-5-mini', system: 'Tu es un crâne.', messages: [{ role: 'user', content: 'Salut' }],
      maxTokens: 120, temperature: 0.7, topP: 0.9, reasoningEffort: 'minimal',
    });
    expect(r.text).toBe('ok');
    const b = body();
    expect(b).toMatchObject({ model: 'gpt-5-mini', max_completion_tokens: 120, reasoning_effort: 'minimal' });
    expect(b).not.toHaveProperty('temperature');
    expect(b).not.toHaveProperty('top_p');
    expect(b).not.toHaveProperty('max_tokens');
    expect(b.messages).toEqual([{ role: 'system', content: 'Tu es un crâne.' }, { role: 'user', content: 'Salut' }]);
  });

  it('GPT-5.1 maps the minimal effort to none; o-series to low', async () => {
    await provider.generate({ model: 'gpt-5.1', messages: [{ role: 'user', content: 'x' }], reasoningEffort: 'minimal' });
    await provider.generate({ model: 'o4-mini', messages: [{ role: 'user', content: 'x' }], reasoningEffort: 'minimal', temperature: 0.2, maxTokens: 9 });
    expect(body(0).reasoning_effort).toBe('none');
    expect(body(1)).toMatchObject({ reasoning_effort: 'low', max_completion_tokens: 9 });
    expect(body(1)).not.toHaveProperty('temperature');
  });

  it('other models (DeepSeek, Ollama…) get max_tokens, temperature, top_p and no reasoning_effort', async () => {
    await provider.generate({
      model: 'deepseek-chat', messages: [{ role: 'user', content: 'Corrige' }], maxTokens: 800, temperature: 0.2, topP: 0.95,
      reasoningEffort: 'low', json: true,
    });
    const b = body();
    expect(b).toMatchObject({ model: 'deepseek-chat', max_tokens: 800, temperature: 0.2, top_p: 0.95, response_format: { type: 'json_object' } });
    expect(b).not.toHaveProperty('reasoning_effort');
    expect(b).not.toHaveProperty('max_completion_tokens');
  });

  it('sends the key as a bearer token and no SDK retries happen on 500', async () => {
    fake.script({ status: 500 });
    await expect(provider.generate({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ kind: 'server', status: 500 });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer sk-test-secret-123456');
  });
});

describe('openai adapter: results', () => {
  it('maps usage incl. cached_tokens and the model that answered', async () => {
    fake.script({ text: 'Bonjour !', model: 'gpt-5-mini-2025-08-07', usage: { prompt_tokens: 1200, completion_tokens: 40, cached_tokens: 1024 } });
    const r = await provider.generate({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'x' }] });
    expect(r).toMatchObject({ text: 'Bonjour !', model: 'gpt-5-mini-2025-08-07', provider: 'openai', finishReason: 'stop' });
    expect(r.usage).toMatchObject({ inputTokens: 1200, outputTokens: 40, cachedTokens: 1024, cacheCreationTokens: 0 });
    expect(r.usage.latencyMs).toBeGreaterThan(0);
  });

  it('streams deltas through onDelta and still reports usage', async () => {
    fake.script({ text: 'un deux trois', usage: { prompt_tokens: 5, completion_tokens: 3, cached_tokens: 2 } });
    const deltas: string[] = [];
    const r = await provider.generate({ model: 'gpt-5-nano', messages: [{ role: 'user', content: 'x' }], onDelta: (d) => deltas.push(d) });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('un deux trois');
    expect(r.text).toBe('un deux trois');
    expect(r.usage).toMatchObject({ inputTokens: 5, outputTokens: 3, cachedTokens: 2 });
    expect(body()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('numbers documents in the prompt and maps [n] markers to citations', async () => {
    fake.script({ text: 'Trois ans [2], voir aussi [1] et [2].' });
    const r = await provider.generate({
      model: 'deepseek-chat',
      messages: [{ role: 'user', content: 'Combien de temps ?' }],
      documents: [
        { id: 'a', title: 'A', source: 'a.md', text: 'alpha' },
        { id: 'b', title: 'B', source: 'b.md#durees', text: 'trois ans' },
      ],
    });
    expect(r.citations).toEqual([{ sourceId: 'b' }, { sourceId: 'a' }]);
    const user = (body().messages as Array<{ content: string }>)[0]?.content ?? '';
    expect(user).toContain('[2] B (b.md#durees)\ntrois ans');
    expect(user.endsWith('Combien de temps ?')).toBe(true);
  });

  it('empty text is a typed `empty` error', async () => {
    fake.script({ text: '', finishReason: 'length' });
    await expect(provider.generate({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ name: 'LlmError', kind: 'empty' });
  });

  it('a GPT-5 request built by hand with temperature would be rejected by the fake as by the API', async () => {
    const res = await fetch(`${fake.url}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-5', messages: [], temperature: 0.7 }),
    });
    expect(res.status).toBe(400);
  });
});
