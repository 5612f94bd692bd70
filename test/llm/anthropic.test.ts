/** The Anthropic adapter through the real `@anthropic-ai/sdk` against the wire fake. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../actors/llm/anthropic.js';
import type { LlmProvider, SourceDocument } from '../../machines/llmPort.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropicFake.js';

let fake: AnthropicFake;
let provider: LlmProvider;
beforeAll(async () => {
  fake = await startAnthropicFake();
  provider = createAnthropicProvider({ apiKey: 'sk-ant-test-secret', baseURL: fake.url });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const body = (i = 0): Record<string, unknown> => fake.requests[i]?.body as Record<string, unknown>;

const DOCS: SourceDocument[] = [
  { id: 'rgpd-14', title: 'Durées de conservation', source: 'rgpd/14-durees.md#durees', text: 'Les données sont conservées trois ans.' },
  { id: 'rgpd-02', title: 'Définitions', source: 'rgpd/02-definitions.md', text: 'Une donnée personnelle est…' },
];

describe('anthropic adapter: request', () => {
  it('marks the stable system block with cache_control ephemeral', async () => {
    await provider.generate({ model: 'claude-sonnet-5-5', system: 'Réponds en français.', messages: [{ role: 'user', content: 'Salut' }], maxTokens: 300 });
    const b = body();
    expect(b.system).toEqual([{ type: 'text', text: 'Réponds en français.', cache_control: { type: 'ephemeral' } }]);
    expect(b).toMatchObject({ model: 'claude-sonnet-5-5', max_tokens: 300, messages: [{ role: 'user', content: 'Salut' }] });
  });

  it('never sends sampling knobs (API 2026-10-21 rejects them) and always sends max_tokens', async () => {
    await provider.generate({ model: 'claude-haiku-5-5', messages: [{ role: 'user', content: 'x' }], temperature: 0.3, topP: 0.9 });
    const b = body();
    expect(b).not.toHaveProperty('temperature');
    expect(b).not.toHaveProperty('top_p');
    expect(b.max_tokens).toBe(1024);
    expect(fake.requests[0]?.headers['anthropic-version']).toBe('2026-10-21');
  });

  it('sends documents as search_result blocks with citations enabled, before the question', async () => {
    await provider.generate({ model: 'claude-sonnet-5-5', messages: [{ role: 'user', content: 'Combien de temps ?' }], documents: DOCS });
    const content = (body().messages as Array<{ content: unknown }>)[0]?.content;
    expect(content).toEqual([
      { type: 'search_result', source: 'rgpd/14-durees.md#durees', title: 'Durées de conservation', content: [{ type: 'text', text: 'Les données sont conservées trois ans.' }], citations: { enabled: true } },
      { type: 'search_result', source: 'rgpd/02-definitions.md', title: 'Définitions', content: [{ type: 'text', text: 'Une donnée personnelle est…' }], citations: { enabled: true } },
      { type: 'text', text: 'Combien de temps ?' },
    ]);
  });
});

describe('anthropic adapter: results', () => {
  it('maps usage with cache read and cache creation', async () => {
    fake.script({ text: 'Bonjour', model: 'claude-sonnet-5-5-20261001', usage: { input_tokens: 50, output_tokens: 7, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300 } });
    const r = await provider.generate({ model: 'claude-sonnet-5-5', system: 'stable', messages: [{ role: 'user', content: 'x' }] });
    expect(r).toMatchObject({ text: 'Bonjour', model: 'claude-sonnet-5-5-20261001', provider: 'anthropic', finishReason: 'end_turn' });
    expect(r.usage).toMatchObject({ inputTokens: 2350, outputTokens: 7, cachedTokens: 2000, cacheCreationTokens: 300 });
  });

  it('maps search_result_location citations back to document ids', async () => {
    fake.script({ blocks: [
      { text: 'Selon la documentation, ' },
      { text: 'les données sont conservées trois ans.', citations: [{ searchResultIndex: 0 }] },
      { text: ' Une donnée personnelle…', citations: [{ searchResultIndex: 1, citedText: 'Une donnée personnelle est…' }] },
    ] });
    const r = await provider.generate({ model: 'claude-sonnet-5-5', messages: [{ role: 'user', content: 'q' }], documents: DOCS });
    expect(r.text).toBe('Selon la documentation, les données sont conservées trois ans. Une donnée personnelle…');
    expect(r.citations).toEqual([
      { sourceId: 'rgpd-14', citedText: 'Les données sont conservées trois ans.' },
      { sourceId: 'rgpd-02', citedText: 'Une donnée personnelle est…' },
    ]);
  });

  it('streams text deltas, citations and final usage', async () => {
    fake.script({
      blocks: [{ text: 'Trois ans, ' }, { text: 'selon la doc.', citations: [{ searchResultIndex: 0 }] }],
      usage: { input_tokens: 10, output_tokens: 6, cache_read_input_tokens: 900 },
    });
    const deltas: string[] = [];
    const r = await provider.generate({ model: 'claude-sonnet-5-5', messages: [{ role: 'user', content: 'q' }], documents: DOCS, onDelta: (d) => deltas.push(d) });
    expect(deltas.join('')).toBe('Trois ans, selon la doc.');
    expect(deltas.length).toBeGreaterThan(2);
    expect(r.citations).toEqual([{ sourceId: 'rgpd-14', citedText: 'Les données sont conservées trois ans.' }]);
    expect(r.usage).toMatchObject({ inputTokens: 910, outputTokens: 6, cachedTokens: 900 });
    expect(body().stream).toBe(true);
  });

  it('529 overloaded is a transient server error', async () => {
    fake.script({ status: 529 });
    const err = await provider.generate({ model: 'claude-sonnet-5-5', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'server', status: 529, transient: true, provider: 'anthropic' });
    expect(fake.requests).toHaveLength(1);
  });
});
