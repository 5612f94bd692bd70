/** The Gemini text adapter through the real `@google/genai` SDK against the wire fake. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGeminiProvider } from '../../actors/llm/gemini.js';
import type { LlmProvider } from '../../machines/llmPort.js';
import { startGeminiFake, type GeminiFake } from '../fakes/geminiFake.js';

let fake: GeminiFake;
let provider: LlmProvider;
beforeAll(async () => {
  fake = await startGeminiFake();
  provider = createGeminiProvider({ apiKey: 'AIzaTestKeyTestKeyTestKey123', baseUrl: fake.url });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const body = (): Record<string, unknown> => fake.requests[0]?.body as Record<string, unknown>;

describe('gemini adapter', () => {
  it('sends model in the path (v1beta), system instruction, generation config', async () => {
    await provider.generate({
      model: 'gemini-2.5-flash', system: 'Sois bref.', maxTokens: 64, temperature: 0.4, topP: 0.8, json: true,
      messages: [{ role: 'user', content: 'Salut' }, { role: 'assistant', content: 'Bonjour' }, { role: 'user', content: 'Ça va ?' }],
    });
    expect(fake.requests[0]?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(fake.requests[0]?.headers['x-goog-api-key']).toBe('AIzaTestKeyTestKeyTestKey123');
    const b = body();
    expect(b.contents).toEqual([
      { role: 'user', parts: [{ text: 'Salut' }] },
      { role: 'model', parts: [{ text: 'Bonjour' }] },
      { role: 'user', parts: [{ text: 'Ça va ?' }] },
    ]);
    expect(b.systemInstruction).toMatchObject({ parts: [{ text: 'Sois bref.' }] });
    expect(b.generationConfig).toMatchObject({ maxOutputTokens: 64, temperature: 0.4, topP: 0.8, responseMimeType: 'application/json' });
  });

  it('maps usage (cached, thoughts counted as output) and modelVersion', async () => {
    fake.script({ text: 'Très bien.', model: 'gemini-2.5-flash-001', usage: { promptTokenCount: 300, candidatesTokenCount: 4, cachedContentTokenCount: 256, thoughtsTokenCount: 10 } });
    const r = await provider.generate({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] });
    expect(r).toMatchObject({ text: 'Très bien.', model: 'gemini-2.5-flash-001', provider: 'gemini', finishReason: 'STOP' });
    expect(r.usage).toMatchObject({ inputTokens: 300, outputTokens: 14, cachedTokens: 256, cacheCreationTokens: 0 });
  });

  it('streams through streamGenerateContent with onDelta', async () => {
    fake.script({ text: 'un deux trois', usage: { promptTokenCount: 3, candidatesTokenCount: 3 } });
    const deltas: string[] = [];
    const r = await provider.generate({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }], onDelta: (d) => deltas.push(d) });
    expect(deltas).toEqual(['un ', 'deux ', 'trois']);
    expect(r.text).toBe('un deux trois');
    expect(r.usage.outputTokens).toBe(3);
    expect(fake.requests[0]?.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
  });

  it('429 with retry-after header → rate_limited with retryAfterMs', async () => {
    fake.script({ status: 429, headers: { 'retry-after': '3' } });
    await expect(provider.generate({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] }))
      .rejects.toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 3000, provider: 'gemini' });
  });

  it('429 with RetryInfo in the body and no header → retryAfterMs from retryDelay', async () => {
    fake.script({ status: 429, body: { error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }] } } });
    await expect(provider.generate({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] }))
      .rejects.toMatchObject({ kind: 'rate_limited', retryAfterMs: 7000 });
    expect(fake.requests).toHaveLength(1);
  });

  it('never leaks the key in an error message', async () => {
    fake.script({ status: 400, errorMessage: 'bad key=AIzaTestKeyTestKeyTestKey123' });
    const err = await provider.generate({ model: 'g', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'bad_request' });
    expect(String((err as Error).message)).not.toContain('AIzaTestKeyTestKeyTestKey123');
  });
});
