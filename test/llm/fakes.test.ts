/**
 * The fakes themselves, checked with the official SDKs (no adapter in between): if a fake drifts from
 * the wire protocol, the SDK fails to parse it here first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openaiFake.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropicFake.js';
import { startGeminiFake, type GeminiFake } from '../fakes/geminiFake.js';

let oa: OpenAIFake;
let an: AnthropicFake;
let ge: GeminiFake;
beforeAll(async () => {
  [oa, an, ge] = await Promise.all([startOpenAIFake(), startAnthropicFake(), startGeminiFake()]);
});
afterAll(async () => {
  await Promise.all([oa.close(), an.close(), ge.close()]);
});

describe('OpenAI fake', () => {
  const client = (): OpenAI => new OpenAI({ apiKey: 'sk-test', baseURL: `${oa.url}/v1`, maxRetries: 0 });

  it('answers JSON that the SDK parses, with cached_tokens', async () => {
    oa.script({ text: 'Bonjour', usage: { prompt_tokens: 40, completion_tokens: 2, cached_tokens: 32 } });
    const r = await client().chat.completions.create({ model: 'm1', messages: [{ role: 'user', content: 'salut' }] });
    expect(r.choices[0]?.message.content).toBe('Bonjour');
    expect(r.model).toBe('m1');
    expect(r.usage?.prompt_tokens_details?.cached_tokens).toBe(32);
    expect(oa.requests.at(-1)?.path).toBe('/v1/chat/completions');
  });

  it('streams SSE deltas and a usage chunk', async () => {
    oa.script({ text: 'un deux trois', usage: { prompt_tokens: 7, completion_tokens: 3 } });
    const stream = await client().chat.completions.create({
      model: 'm1', messages: [{ role: 'user', content: 'x' }], stream: true, stream_options: { include_usage: true },
    });
    let text = '';
    let usage: number | undefined;
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? '';
      if (c.usage) usage = c.usage.completion_tokens;
    }
    expect(text).toBe('un deux trois');
    expect(usage).toBe(3);
  });

  it('queues scripted errors before the default reply and records the headers', async () => {
    oa.script({ status: 429, headers: { 'retry-after': '2' } });
    const err = await client().chat.completions.create({ model: 'm', messages: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('2');
    expect(oa.requests.at(-1)?.headers.authorization).toBe('Bearer sk-test');
    const ok = await client().chat.completions.create({ model: 'm', messages: [] });
    expect(ok.choices[0]?.message.content).toBe('ok');
  });

  it('answers keyed replies to the requests they match, whatever the arrival order', async () => {
    oa.script({ text: 'queued' });
    oa.scriptWhen((q) => q.rawBody.includes('skull'), { text: 'pour le crâne' });
    const ask = (content: string): Promise<string | null | undefined> =>
      client().chat.completions.create({ model: 'm', messages: [{ role: 'user', content }] }).then((r) => r.choices[0]?.message.content);
    const seen = oa.waitForRequest((q) => q.rawBody.includes('skull'));
    // The other call arrives first and takes the main queue, not the keyed reply.
    expect(await ask('autre chose')).toBe('queued');
    expect(await ask('parle au skull')).toBe('pour le crâne');
    expect((await seen).rawBody).toContain('parle au skull');
    // A keyed reply is used once; then the default.
    expect(await ask('skull encore')).toBe('ok');
  });
});

describe('Anthropic fake', () => {
  const client = (): Anthropic => new Anthropic({ apiKey: 'sk-ant-test', baseURL: an.url, maxRetries: 0 });

  it('answers JSON with cache usage and search_result citations', async () => {
    an.script({
      blocks: [{ text: 'Selon la doc, ' }, { text: 'trois ans.', citations: [{ searchResultIndex: 1 }] }],
      usage: { input_tokens: 12, cache_read_input_tokens: 900, cache_creation_input_tokens: 0 },
    });
    const r = await client().messages.create({
      model: 'claude-x', max_tokens: 100,
      messages: [{ role: 'user', content: [
        { type: 'search_result', source: 'a.md', title: 'A', content: [{ type: 'text', text: 'alpha' }], citations: { enabled: true } },
        { type: 'search_result', source: 'b.md', title: 'B', content: [{ type: 'text', text: 'trois ans' }], citations: { enabled: true } },
        { type: 'text', text: 'combien ?' },
      ] }],
    });
    expect(r.usage.cache_read_input_tokens).toBe(900);
    const cited = r.content[1];
    expect(cited?.type === 'text' && cited.citations?.[0]).toMatchObject({ type: 'search_result_location', source: 'b.md', cited_text: 'trois ans', search_result_index: 1 });
  });

  it('streams the real event sequence', async () => {
    an.script({ blocks: [{ text: 'a b' }, { text: 'c', citations: [{ searchResultIndex: 0, citedText: 'zz' }] }], usage: { output_tokens: 9 } });
    const stream = client().messages.stream({ model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: 'q' }] });
    const msg = await stream.finalMessage();
    expect(msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('')).toBe('a bc');
    expect(msg.usage.output_tokens).toBe(9);
    const last = msg.content[1];
    expect(last?.type === 'text' && last.citations?.[0]?.cited_text).toBe('zz');
  });
});

describe('Gemini fake', () => {
  const ai = (): GoogleGenAI => new GoogleGenAI({ apiKey: 'g-test', httpOptions: { baseUrl: ge.url, apiVersion: 'v1beta' } });

  it('answers generateContent', async () => {
    ge.script({ text: 'Salut', usage: { promptTokenCount: 20, candidatesTokenCount: 1, cachedContentTokenCount: 16 } });
    const r = await ai().models.generateContent({ model: 'gemini-2.5-flash', contents: 'bonjour' });
    expect(r.text).toBe('Salut');
    expect(r.usageMetadata?.cachedContentTokenCount).toBe(16);
    expect(r.modelVersion).toBe('gemini-2.5-flash');
    expect(ge.requests.at(-1)?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
  });

  it('streams streamGenerateContent', async () => {
    ge.script({ text: 'un deux' });
    let text = '';
    for await (const c of await ai().models.generateContentStream({ model: 'g', contents: 'x' })) text += c.text ?? '';
    expect(text).toBe('un deux');
    expect(ge.requests.at(-1)?.query.get('alt')).toBe('sse');
  });
});

describe('shared behaviour', () => {
  it('records a client that closes before the reply', async () => {
    oa.script({ delayMs: 10_000 });
    const ac = new AbortController();
    const before = oa.requests.length;
    const p = new OpenAI({ apiKey: 'k', baseURL: `${oa.url}/v1`, maxRetries: 0 })
      .chat.completions.create({ model: 'm', messages: [] }, { signal: ac.signal })
      .catch((e: unknown) => e);
    const reqs = await oa.waitForRequests(before + 1);
    ac.abort();
    expect(await p).toBeInstanceOf(OpenAI.APIUserAbortError);
    expect(await reqs[before]?.done).toBe('client-closed');
    expect(reqs[before]?.clientClosed).toBe(true);
  });

  it('answers unknown paths with a 404 in the protocol format', async () => {
    const res = await fetch(`${an.url}/v2/nothing`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { type: string }).type).toBe('error');
  });
});
