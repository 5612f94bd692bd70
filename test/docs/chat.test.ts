import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocsAssistant, type DocsCore } from '../../actors/docs/assistant.js';
import { createProviders } from '../../actors/llm/providers.js';
import { capabilitiesFor } from '../../actors/llm/capabilities.js';
import { silentLogger } from '../../core/log.js';
import { Runtime } from '../../core/runtime.js';
import { CHAT_SYSTEM_PROMPT, OUT_OF_SCOPE_ANSWER } from '../../prompts/docs/chat.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import { makeCorpus, recordingProvider, registryOf, testConfig } from './fixtures.js';

/** docs/docs-assistant.md#one-question-step-by-step-the-rules-the-code-relies-on — orchestration, LLM port, guard rails (non-browser cases). */
let root: string;
beforeAll(() => {
  root = makeCorpus();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function assistantWith(provider: ReturnType<typeof recordingProvider>, runtime?: Runtime): Promise<DocsCore> {
  const a = createDocsAssistant({ config: testConfig({ CORPUS_DIR: root }), providers: registryOf(provider), persist: false, ...(runtime ? { runtime } : {}) });
  await a.ready();
  return a;
}

const QUESTION = 'Combien de temps conserver un dossier médical ?';

describe('orchestration', () => {
  it('passes the question to retrieval; the prompt holds the retrieved passages and the question', async () => {
    const provider = recordingProvider((req) => ({ text: 'Vingt ans.', citations: [{ sourceId: req.documents![0]!.id }] }));
    const runtime = new Runtime();
    const a = await assistantWith(provider, runtime);
    const retrieved = a.search(QUESTION, 5).filter((p) => p.score >= 0.3);
    const answer = await a.ask({ question: QUESTION, settings: a.defaults() });
    expect(answer.state).toBe('answered');
    expect(provider.requests).toHaveLength(1);
    const req = provider.requests[0]!;
    expect(req.messages.at(-1)).toEqual({ role: 'user', content: QUESTION });
    expect(req.documents!.map((d) => d.id)).toEqual(retrieved.map((p) => p.id));
    expect(req.documents![0]!.text).toContain('20 ans');
    expect(req.purpose).toBe('chat');
    // The conversation ran as a `chat` actor of the process's system and was stopped after.
    expect(runtime.countByKind()).toEqual({});
    runtime.shutdown();
  });

  it('empty retrieval or scores under the threshold → out of scope, without calling the model', async () => {
    const provider = recordingProvider(() => ({ text: 'should not be called' }));
    const a = await assistantWith(provider);
    for (const question of ['Comment réussir une mayonnaise maison ?', 'zzzz qwxv', 'How do I factory reset an iPhone?']) {
      const answer = await a.ask({ question, settings: a.defaults() });
      expect(answer).toMatchObject({ state: 'outOfScope', outOfScope: true, answer: OUT_OF_SCOPE_ANSWER, sources: [] });
    }
    // An in-scope question whose best score is under the visitor's threshold is refused too.
    const best = Math.max(...a.search(QUESTION, 5).map((p) => p.score));
    expect(best).toBeLessThan(1);
    const strict = await a.ask({ question: QUESTION, settings: { ...a.defaults(), threshold: best + 0.001 } });
    expect(strict.state).toBe('outOfScope');
    expect(provider.requests).toHaveLength(0);
  });

  it('exposes only the sources of passages actually retrieved; invented citations are removed and flagged', async () => {
    const provider = recordingProvider((req) => ({
      text: 'Vingt ans [1], voir aussi [9].',
      citations: [{ sourceId: req.documents![0]!.id }, { sourceId: 'etc/passwd:1' }, { sourceId: req.documents![0]!.id }],
    }));
    const a = await assistantWith(provider);
    const answer = await a.ask({ question: QUESTION, settings: a.defaults() });
    expect(answer.state).toBe('answered');
    expect(answer.flagged).toEqual(['etc/passwd:1']);
    expect(answer.answer).toBe('Vingt ans [1], voir aussi.');
    expect(answer.sources).toEqual([
      { path: 'rgpd/14-conservation.md', section: 'Fiche n°14 : Gérer la durée de conservation › Exemples', anchor: 'exemples', href: '/docs/rgpd/14-conservation.md#exemples' },
    ]);
  });

  it('a failing provider ends in `failed` with a plain message', async () => {
    const provider = recordingProvider(() => {
      throw new Error('boom');
    });
    const a = await assistantWith(provider);
    const answer = await a.ask({ question: QUESTION, settings: a.defaults() });
    expect(answer.state).toBe('failed');
    expect(answer.sources).toEqual([]);
    expect(answer.answer).not.toContain('boom');
  });

  it('sends at most historyTurns turns of history', async () => {
    const provider = recordingProvider((req) => ({ text: 'ok', citations: [{ sourceId: req.documents![0]!.id }] }));
    const a = await assistantWith(provider);
    const history = Array.from({ length: 10 }, (_, i) => ({ role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', content: `t${i}` }));
    await a.ask({ question: QUESTION, history, settings: { ...a.defaults(), historyTurns: 1 } });
    expect(provider.requests[0]!.messages.map((m) => m.content)).toEqual(['t8', 't9', QUESTION]);
  });
});

describe('offline provider', () => {
  it('answers extractively with the best sentence, cited', async () => {
    const config = testConfig({ CORPUS_DIR: root, CHAT_PROVIDER: 'offline' });
    const a = createDocsAssistant({ config, providers: createProviders(config, { logger: silentLogger() }), persist: false });
    await a.ready();
    const deltas: string[] = [];
    const answer = await a.ask({ question: QUESTION, settings: a.defaults(), onDelta: (t) => deltas.push(t) });
    expect(answer.provider).toBe('offline');
    expect(answer.state).toBe('answered');
    expect(answer.answer).toContain('« Les données figurant dans un dossier médical doivent être conservées 20 ans. » [1]');
    expect(answer.sources[0]!.path).toBe('rgpd/14-conservation.md');
    expect(deltas.join('')).toBe(answer.answer);
  });
});

describe('Claude through the port (Anthropic wire fake, real SDK)', () => {
  let fake: AnthropicFake;
  beforeAll(async () => {
    fake = await startAnthropicFake();
  });
  afterAll(() => fake.close());

  it('sends model, temperature, max_tokens, a cached system block and search_result blocks; maps citations back', async () => {
    const config = testConfig({ CORPUS_DIR: root, CHAT_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: fake.url, CHAT_MODEL: 'claude-test', CHAT_TEMPERATURE: '0.1', CHAT_MAX_TOKENS: '321' });
    const a = createDocsAssistant({ config, providers: createProviders(config, { logger: silentLogger() }), persist: false });
    await a.ready();
    fake.script({
      blocks: [{ text: 'Ils sont conservés ' }, { text: '20 ans.', citations: [{ searchResultIndex: 0, citedText: '20 ans' }] }],
      usage: { input_tokens: 50, output_tokens: 8, cache_read_input_tokens: 40 },
    });
    const answer = await a.ask({ question: QUESTION, settings: a.defaults() });
    const body = fake.requests.at(-1)!.body as {
      model: string;
      temperature: number;
      max_tokens: number;
      system: Array<{ type: string; text: string; cache_control?: { type: string } }>;
      messages: Array<{ role: string; content: Array<{ type: string; source?: string; title?: string; citations?: { enabled: boolean }; content?: Array<{ text: string }>; text?: string }> }>;
    };
    expect(body).toMatchObject({ model: 'claude-test', max_tokens: 321 });
    // Temperature goes only where the provider's capability table says the model accepts it.
    expect(body.temperature).toBe(capabilitiesFor('anthropic', 'claude-test').temperature ? 0.1 : undefined);
    expect(body.system).toEqual([{ type: 'text', text: CHAT_SYSTEM_PROMPT, cache_control: { type: 'ephemeral' } }]);
    const last = body.messages.at(-1)!;
    const results = last.content.filter((b) => b.type === 'search_result');
    expect(results.length).toBeGreaterThan(0);
    expect(results[0]).toMatchObject({ source: 'rgpd/14-conservation.md#exemples', citations: { enabled: true } });
    expect(results[0]!.content![0]!.text).toContain('20 ans');
    expect(last.content.at(-1)).toEqual({ type: 'text', text: QUESTION });
    expect(answer.state).toBe('answered');
    expect(answer.answer).toBe('Ils sont conservés 20 ans.');
    expect(answer.sources.map((s) => s.href)).toEqual(['/docs/rgpd/14-conservation.md#exemples']);
    expect(answer.model).toBe('claude-test');
  });
});

describe('injection: a document with <script> and a prompt-injection paragraph', () => {
  it('changes neither the guard nor the sources, and never reaches the system block', async () => {
    const provider = recordingProvider((req) => ({
      // A model that obeyed the injection: answers and cites a file that was never retrieved.
      text: 'PWNED',
      citations: [{ sourceId: '/etc/passwd' }, ...(req.documents ?? []).slice(0, 1).map((d) => ({ sourceId: d.id }))],
    }));
    const a = await assistantWith(provider);
    for (const p of a.search('cookies script alert consentement', 5)) expect(p.text).not.toMatch(/<script/i);
    const mayo = await a.ask({ question: 'Comment réussir une mayonnaise maison ?', settings: a.defaults() });
    expect(mayo.state).toBe('outOfScope');
    expect(provider.requests).toHaveLength(0);
    const cookies = await a.ask({ question: 'Les cookies de mesure d’audience exigent-ils un consentement ?', settings: a.defaults() });
    expect(cookies.state).toBe('answered');
    expect(cookies.flagged).toEqual(['/etc/passwd']);
    expect(cookies.sources.every((s) => s.path === 'hostile.md' || s.path.startsWith('rgpd/'))).toBe(true);
    expect(cookies.sources.map((s) => s.path)).not.toContain('/etc/passwd');
    expect(provider.requests[0]!.system).toBe(CHAT_SYSTEM_PROMPT);
  });
});

describe('other providers: numbered passages (OpenAI wire fake, real SDK)', () => {
  it('sends the passages numbered before the question and maps [n] back to sources; [n] past the list is removed', async () => {
    const { startOpenAIFake } = await import('../fakes/openai.js');
    const fake = await startOpenAIFake();
    try {
      const config = testConfig({ CORPUS_DIR: root, CHAT_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test-openai', OPENAI_BASE_URL: `${fake.url}/v1`, CHAT_MODEL: 'gpt-4o-mini', CHAT_TEMPERATURE: '0.1' });
      const a = createDocsAssistant({ config, providers: createProviders(config, { logger: silentLogger() }), persist: false });
      await a.ready();
      fake.script({ text: 'Vingt ans [1], selon [8].' });
      const answer = await a.ask({ question: QUESTION, settings: a.defaults() });
      const body = fake.requests.at(-1)!.body as { model: string; temperature?: number; messages: Array<{ role: string; content: string }> };
      expect(body.model).toBe('gpt-4o-mini');
      expect(body.temperature).toBe(0.1);
      const user = body.messages.at(-1)!;
      expect(user.content).toMatch(/^Sources:\n\n\[1\] rgpd\/14-conservation\.md › /);
      expect(user.content).toContain('20 ans');
      expect(user.content.endsWith(QUESTION)).toBe(true);
      expect(answer.state).toBe('answered');
      expect(answer.answer).toBe('Vingt ans [1], selon.');
      expect(answer.sources.map((s) => s.path)).toEqual(['rgpd/14-conservation.md']);
    } finally {
      await fake.close();
    }
  });
});

describe('streaming with a retried model call', () => {
  it('signals a reset before the deltas of the new attempt', async () => {
    const { LlmError } = await import('../../actors/llm/types.js');
    let calls = 0;
    const provider = recordingProvider(() => ({ text: 'unused' }));
    provider.generate = async (req) => {
      calls++;
      if (calls === 1) {
        req.onDelta?.('Faux ');
        throw new LlmError('server', 'HTTP 503 mid-stream', { provider: 'anthropic', status: 503 });
      }
      req.onDelta?.('Vrai.');
      return { text: 'Vrai.', model: req.model, provider: 'anthropic', citations: [{ sourceId: req.documents![0]!.id }], usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 1 } };
    };
    const config = testConfig({ CORPUS_DIR: root, LLM_MAX_RETRIES: '1', LLM_BACKOFF_BASE_MS: '0' });
    const a = createDocsAssistant({ config, providers: registryOf(provider), persist: false });
    await a.ready();
    const events: string[] = [];
    const answer = await a.ask({ question: QUESTION, settings: a.defaults(), onDelta: (t) => events.push(`delta:${t}`), onReset: () => events.push('reset') });
    expect(events).toEqual(['delta:Faux ', 'reset', 'delta:Vrai.']);
    expect(answer).toMatchObject({ state: 'answered', answer: 'Vrai.' });
  });
});
