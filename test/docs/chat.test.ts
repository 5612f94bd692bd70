import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocsAssistant, type DocsCore } from '../../actors/docs/assistant.js';
import { createProviders } from '../../actors/llm/providers.js';
import { capabilitiesFor } from '../../actors/llm/capabilities.js';
import { silentLogger } from '../../core/log.js';
import { Runtime } from '../../core/runtime.js';
import { questionSignals } from '../../actors/retrieval/confidence.js';
import { CHAT_SYSTEM_PROMPT, LOW_CONFIDENCE_NOTICES, OUT_OF_SCOPE_ANSWER, OUT_OF_SCOPE_ANSWERS } from '../../prompts/docs/chatPrompt.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropicFake.js';
import { makeCorpus, recordingProvider, registryOf, testConfig } from './fixtures.js';

/** docs/docs-assistant.md#one-question-step-by-step-the-rules-the-code-relies-on — orchestration, LLM port, guard rails (non-browser cases). */
let root: string;
beforeAll(() => {
  root = makeCorpus();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * These cases are about retrieval, the prompt, generation and streaming: the claim check that
 * follows generation with a provider is off here and has its own cases (claimCheck.test.ts).
 */
const GENERATION_ONLY = { CHAT_CLAIM_CHECK: 'off' } as const;

async function assistantWith(provider: ReturnType<typeof recordingProvider>, runtime?: Runtime): Promise<DocsCore> {
  const a = createDocsAssistant({ config: testConfig({ CORPUS_DIR: root, ...GENERATION_ONLY }), providers: registryOf(provider), persist: false, ...(runtime ? { runtime } : {}) });
  await a.ready();
  return a;
}

// Answered "high" with the default bounds (every word is in the medical-file passage: its learned
// probability is over the high bound, checked below); raising the high bound to 0.99 puts it in the
// "ask" band.
const QUESTION = 'Quelle est la durée de conservation du dossier médical ?';

/** The learned probability the guard compares to the high bound, for a question on assistant `a`. */
function inScope(a: DocsCore, question: string): number {
  const hits = a.search(question, a.defaults().k);
  return questionSignals(question, hits, hits.map((h) => a.retriever.explain(question, h.id))).signals.inScope;
}

describe('orchestration', () => {
  it('passes the question to retrieval; the prompt holds the retrieved passages and the question', async () => {
    const provider = recordingProvider((req) => ({ text: 'Vingt ans.', citations: [{ sourceId: req.documents![0]!.id }] }));
    const runtime = new Runtime();
    const a = await assistantWith(provider, runtime);
    const retrieved = a.search(QUESTION, 5).filter((p) => p.score >= 0.3);
    const p = inScope(a, QUESTION);
    expect(p).toBeGreaterThanOrEqual(a.defaults().confident);
    expect(p).toBeLessThan(0.99);
    const answer = await a.ask({ question: QUESTION, settings: a.defaults() });
    expect(answer).toMatchObject({ state: 'answered', confidence: 'high' });
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
    for (const question of ['Comment réussir une mayonnaise maison ?', 'zzzz qwxv']) {
      const answer = await a.ask({ question, settings: a.defaults() });
      expect(answer).toMatchObject({ state: 'outOfScope', outOfScope: true, confidence: 'high', answer: OUT_OF_SCOPE_ANSWER, sources: [] });
    }
    // Refused in the question's language.
    const en = await a.ask({ question: 'What is the weather forecast for Lyon tomorrow?', settings: a.defaults() });
    expect(en).toMatchObject({ state: 'outOfScope', outOfScope: true, lang: 'en', answer: OUT_OF_SCOPE_ANSWERS.en });
    // An in-scope question whose best score is under the visitor's threshold is refused too.
    const partial = 'Combien de temps garder un dossier médical ?'; // « garder »: not the fixture's word
    const best = Math.max(...a.search(partial, 5).map((p) => p.score));
    expect(best).toBeLessThan(1);
    const strict = await a.ask({ question: partial, settings: { ...a.defaults(), threshold: best + 0.001 } });
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
    expect(answer.removedMarks).toBe(1);
    expect(answer.sources).toEqual([
      { path: 'rgpd/14-conservation.md', section: 'Fiche n°14 : Gérer la durée de conservation › Exemples', anchor: 'exemples', lang: 'fr', href: '/docs/rgpd/14-conservation.md#exemples' },
    ]);
  });

  it('numbers sources in order of first mark: [n] is source n of the same answer', async () => {
    const provider = recordingProvider((req) => ({ text: `A [${req.documents!.length}], B [1][${req.documents!.length}], C [1, 40].`, citations: [] }));
    const a = await assistantWith(provider);
    const answer = await a.ask({ question: 'Combien de temps conserver les données, cookies et progress tokens ?', settings: { ...a.defaults(), threshold: 0, confident: 0 } });
    const sent = provider.requests[0]!.documents!;
    expect(sent.length).toBeGreaterThan(1);
    expect(answer.answer).toBe('A [1], B [2][1], C [2].');
    expect(answer.removedMarks).toBe(1);
    expect(answer.sources.map((s) => s.path)).toEqual([sent.at(-1)!.source.split('#')[0], sent[0]!.source.split('#')[0]]);
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
    const config = testConfig({ CORPUS_DIR: root, CHAT_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: fake.url, CHAT_MODEL: 'claude-test', CHAT_TEMPERATURE: '0.1', CHAT_MAX_TOKENS: '321' , ...GENERATION_ONLY });
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
    const { startOpenAIFake } = await import('../fakes/openaiFake.js');
    const fake = await startOpenAIFake();
    try {
      const config = testConfig({ CORPUS_DIR: root, CHAT_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test-openai', OPENAI_BASE_URL: `${fake.url}/v1`, CHAT_MODEL: 'gpt-4o-mini', CHAT_TEMPERATURE: '0.1' , ...GENERATION_ONLY });
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
    const { LlmError } = await import('../../machines/llmPort.js');
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
    const config = testConfig({ CORPUS_DIR: root, LLM_MAX_RETRIES: '1', LLM_BACKOFF_BASE_MS: '0' , ...GENERATION_ONLY });
    const a = createDocsAssistant({ config, providers: registryOf(provider), persist: false });
    await a.ready();
    const events: string[] = [];
    const answer = await a.ask({ question: QUESTION, settings: a.defaults(), onDelta: (t) => events.push(`delta:${t}`), onReset: () => events.push('reset') });
    expect(events).toEqual(['delta:Faux ', 'reset', 'delta:Vrai.']);
    expect(answer).toMatchObject({ state: 'answered', answer: 'Vrai.' });
  });
});

describe('the "ask" band: one relevance call (OpenAI wire fake, real SDK)', () => {
  // A high bound no passage reaches: every in-scope question of the small corpus is in the band.
  const setup = async (fake: { url: string }, env: Record<string, string> = {}) => {
    const config = testConfig({ CORPUS_DIR: root, CHAT_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test-openai', OPENAI_BASE_URL: `${fake.url}/v1`, CHAT_MODEL: 'gpt-4o-mini', CHAT_SCORE_CONFIDENT: '0.99', ...env , ...GENERATION_ONLY });
    const calls: Array<{ verdict: string; ms: number }> = [];
    const a = createDocsAssistant({ config, providers: createProviders(config, { logger: silentLogger() }), persist: false, onRelevanceCall: (r) => calls.push({ verdict: r.verdict, ms: r.ms }) });
    await a.ready();
    return { a, calls };
  };

  it('a verdict naming passages: answered with confidence high, from those passages only', async () => {
    const { startOpenAIFake } = await import('../fakes/openaiFake.js');
    const fake = await startOpenAIFake();
    try {
      const { a, calls } = await setup(fake, { CHAT_RELEVANCE_MODEL: 'gpt-4.1-nano' });
      fake.script({ text: '{"answering": [1]}' }, { text: 'Vingt ans [1].' });
      const answer = await a.ask({ question: QUESTION, settings: a.defaults() });
      expect(fake.requests).toHaveLength(2);
      const judge = fake.requests[0]!.body as { model: string; response_format?: { type: string }; messages: Array<{ content: string }> };
      expect(judge.model).toBe('gpt-4.1-nano');
      expect(judge.messages.at(-1)!.content).toContain(`Question: ${QUESTION}`);
      const gen = fake.requests[1]!.body as { messages: Array<{ content: string }> };
      expect(gen.messages.at(-1)!.content.match(/^\[\d+\]/gm)).toEqual(['[1]']);
      expect(answer).toMatchObject({ state: 'answered', confidence: 'high', answer: 'Vingt ans [1].' });
      expect(answer.notice).toBeUndefined();
      expect(calls).toEqual([{ verdict: 'some', ms: expect.any(Number) }]);
    } finally {
      await fake.close();
    }
  });

  it('an empty verdict: out of scope, the answer is never generated', async () => {
    const { startOpenAIFake } = await import('../fakes/openaiFake.js');
    const fake = await startOpenAIFake();
    try {
      const { a, calls } = await setup(fake);
      fake.script({ text: '{"answering": []}' });
      const answer = await a.ask({ question: QUESTION, settings: a.defaults() });
      expect(fake.requests).toHaveLength(1);
      expect(answer).toMatchObject({ state: 'outOfScope', outOfScope: true, confidence: 'high', answer: OUT_OF_SCOPE_ANSWER });
      expect(calls.map((c) => c.verdict)).toEqual(['none']);
    } finally {
      await fake.close();
    }
  });

  it('malformed verdicts, a failed call or a late one: answered with confidence low and the notice, never a crash', async () => {
    const { startOpenAIFake } = await import('../fakes/openaiFake.js');
    const fake = await startOpenAIFake();
    try {
      // The deadline is far above a local reply even on a busy machine, so only the late reply misses it.
      const { a, calls } = await setup(fake, { CHAT_RELEVANCE_TIMEOUT_MS: '1500' });
      const replies = [{ text: 'Oui, le passage 1.' }, { text: '{"answering": "1"}' }, { text: '{"answering": [42]}' }, { raw: '{"choices": [' }, { status: 500 }, { delayMs: 8000 }];
      for (const reply of replies) {
        fake.script(reply, { text: 'Vingt ans [1].' });
        const answer = await a.ask({ question: QUESTION, settings: a.defaults() });
        expect(answer).toMatchObject({ state: 'answered', confidence: 'low', notice: LOW_CONFIDENCE_NOTICES.fr, answer: 'Vingt ans [1].' });
      }
      expect(calls.map((c) => c.verdict)).toEqual(replies.map(() => 'invalid'));
    } finally {
      await fake.close();
    }
  });
});

describe('offline between the bounds', () => {
  it('answers with confidence low and says so, in the question\'s language', async () => {
    const config = testConfig({ CORPUS_DIR: root, CHAT_PROVIDER: 'offline', CHAT_SCORE_CONFIDENT: '0.99' });
    const a = createDocsAssistant({ config, providers: createProviders(config, { logger: silentLogger() }), persist: false });
    await a.ready();
    const fr = await a.ask({ question: QUESTION, settings: a.defaults() });
    expect(fr).toMatchObject({ state: 'answered', confidence: 'low', lang: 'fr', notice: LOW_CONFIDENCE_NOTICES.fr });
    const en = await a.ask({ question: 'How long must a medical record be kept?', settings: a.defaults() });
    expect(en).toMatchObject({ state: 'answered', confidence: 'low', lang: 'en', notice: LOW_CONFIDENCE_NOTICES.en });
    expect(en.answer.startsWith('Extractive answer (offline mode, no model called):')).toBe(true);
  });
});

describe('offline, on docs that never mention the question\'s subject', () => {
  it('a question sharing only its common words with the docs is not answered with confidence high', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const docs = mkdtempSync(join(tmpdir(), 'palabre-own-docs-'));
    try {
      writeFileSync(join(docs, 'inspect.md'), '# Watching a machine run\n\nEach conversation is listed with its first words, e.g. `chat · « Combien de temps… »`, and the inspector retains its event log for 300 seconds.\n');
      writeFileSync(join(docs, 't2.md'), '# The recording\n\nThe recording of each session is kept in the data folder as a WAV file, next to its transcript.\n');
      writeFileSync(join(docs, 'skull.md'), '# Topics\n\nSkull listens on one MQTT topic per device and answers on its reply topic.\n');
      writeFileSync(join(docs, 'cli.md'), '# Commands\n\n`palabre serve` starts the server; `palabre ask` answers one question in the terminal.\n');
      const config = testConfig({ CORPUS_DIR: docs, CHAT_PROVIDER: 'offline', CHAT_SCORE_THRESHOLD: '0.2', CHAT_SCORE_CONFIDENT: '0.5' });
      const a = createDocsAssistant({ config, providers: createProviders(config, { logger: silentLogger() }), persist: false });
      await a.ready();
      const answer = await a.ask({ question: 'Combien de temps conserver un dossier médical ?', settings: a.defaults() });
      expect(answer.state === 'outOfScope' || answer.confidence === 'low').toBe(true);
    } finally {
      rmSync(docs, { recursive: true, force: true });
    }
  });
});

describe('the relevance call through Claude (Anthropic wire fake, real SDK)', () => {
  it('a verdict in a text block keeps the named passages; the answer then cites natively', async () => {
    const fake = await startAnthropicFake();
    try {
      const config = testConfig({ CORPUS_DIR: root, CHAT_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: fake.url, CHAT_MODEL: 'claude-test', CHAT_SCORE_CONFIDENT: '0.99' , ...GENERATION_ONLY });
      const a = createDocsAssistant({ config, providers: createProviders(config, { logger: silentLogger() }), persist: false });
      await a.ready();
      fake.script({ text: 'Voici : {"answering": [1]}', usage: { input_tokens: 120, output_tokens: 9 } }, { blocks: [{ text: 'Vingt ans.', citations: [{ searchResultIndex: 0, citedText: '20 ans' }] }] });
      const answer = await a.ask({ question: QUESTION, settings: a.defaults() });
      expect(fake.requests).toHaveLength(2);
      const judge = fake.requests[0]!.body as { max_tokens: number; messages: Array<{ content: unknown }> };
      expect(judge.max_tokens).toBeLessThanOrEqual(40);
      const gen = fake.requests[1]!.body as { messages: Array<{ content: Array<{ type: string }> }> };
      expect(gen.messages.at(-1)!.content.filter((b) => b.type === 'search_result')).toHaveLength(1);
      expect(answer).toMatchObject({ state: 'answered', confidence: 'high', answer: 'Vingt ans.' });
      expect(answer.sources.map((s) => s.href)).toEqual(['/docs/rgpd/14-conservation.md#exemples']);
    } finally {
      await fake.close();
    }
  });
});
