import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocsAssistant } from '../../actors/docs/assistant.js';
import { docsSurface } from '../../actors/docs/surface.js';
import { createProviders } from '../../actors/llm/providers.js';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { silentLogger } from '../../core/log.js';
import { startServer } from '../../actors/serve.js';
import { splitClaims } from '../../machines/chat.js';
import { CLAIM_CHECK_SYSTEM_PROMPT, LOW_CONFIDENCE_NOTICES, OUT_OF_SCOPE_ANSWERS } from '../../prompts/docs/chatPrompt.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openaiFake.js';
import { startAnthropicFake } from '../fakes/anthropicFake.js';
import { makeCorpus, testConfig } from './fixtures.js';
import { ADMIN_PASSWORD, adminLogin } from '../inspect/support.js';

/**
 * docs/docs-assistant.md § Claims checked before they are shown: with a provider, each sentence of
 * the answer is checked against the passage its [n] cites by one structured call (OpenAI wire fake,
 * real SDK); what is not supported never reaches the caller.
 */
let root: string;
let fake: OpenAIFake;
beforeAll(async () => {
  root = makeCorpus();
  fake = await startOpenAIFake();
});
afterAll(async () => {
  await fake.close();
  rmSync(root, { recursive: true, force: true });
});

// Answered "high" on the small corpus: no relevance call, so the requests are the answer, then the check.
const QUESTION = 'Quelle est la durée de conservation du dossier médical ?';
const TWO_SENTENCES = 'Le dossier médical est conservé 20 ans [1]. Il est ensuite détruit par la CNIL [1].';

async function setup(env: Record<string, string> = {}) {
  const config = testConfig({ CORPUS_DIR: root, CHAT_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test-openai', OPENAI_BASE_URL: `${fake.url}/v1`, CHAT_MODEL: 'gpt-4o-mini', ...env });
  const checks: Array<{ supported: number; unsupported: number; valid: boolean }> = [];
  const a = createDocsAssistant({ config, providers: createProviders(config, { logger: silentLogger() }), persist: false, onClaimCheck: (r) => checks.push({ supported: r.supported, unsupported: r.unsupported, valid: r.valid }) });
  await a.ready();
  return { a, checks };
}

async function ask(a: Awaited<ReturnType<typeof setup>>['a']) {
  const streamed: string[] = [];
  const answer = await a.ask({ question: QUESTION, settings: a.defaults(), onDelta: (t) => streamed.push(t) });
  return { answer, streamed: streamed.join('') };
}

describe('splitting an answer into claims', () => {
  it('one claim per sentence or line, marks after the full stop belong to the sentence they end', () => {
    expect(splitClaims('Vingt ans [1]. Dix ans. [2]\n- Une liste [1][2]')).toEqual([
      { text: 'Vingt ans [1].', marks: [1] },
      { text: 'Dix ans [2].', marks: [2] },
      { text: '- Une liste [1][2]', marks: [1, 2] },
    ]);
  });
});

describe('the claim check (OpenAI wire fake, real SDK)', () => {
  it('all supported: the answer is shown whole, after one structured call naming each sentence and its passage', async () => {
    const { a, checks } = await setup({ CHAT_RELEVANCE_MODEL: 'gpt-4.1-nano' });
    fake.requests.length = 0;
    fake.script({ text: TWO_SENTENCES }, { text: '{"supported": [1, 2]}' });
    const { answer, streamed } = await ask(a);
    expect(fake.requests).toHaveLength(2);
    const check = fake.requests[1]!.body as { model: string; response_format?: { type: string }; messages: Array<{ role: string; content: string }> };
    expect(check.model).toBe('gpt-4.1-nano');
    expect(check.response_format?.type).toBe('json_object');
    expect(check.messages[0]!.content).toBe(CLAIM_CHECK_SYSTEM_PROMPT);
    const user = check.messages.at(-1)!.content;
    expect(user).toContain('(1) Le dossier médical est conservé 20 ans [1]. — cites [1]');
    expect(user).toContain('(2) Il est ensuite détruit par la CNIL [1]. — cites [1]');
    expect(user).toMatch(/\[1\] rgpd\/14-conservation\.md › .*\n.*20 ans/);
    expect(answer).toMatchObject({ state: 'answered', confidence: 'high', answer: TWO_SENTENCES, droppedClaims: 0 });
    expect(answer.notice).toBeUndefined();
    expect(streamed).toBe(TWO_SENTENCES);
    expect(checks).toEqual([{ supported: 2, unsupported: 0, valid: true }]);
  });

  it('one unsupported sentence is removed before anything is streamed; the rest is shown', async () => {
    const { a, checks } = await setup();
    fake.script({ text: TWO_SENTENCES }, { text: '{"supported": [1]}' });
    const { answer, streamed } = await ask(a);
    expect(answer).toMatchObject({ state: 'answered', confidence: 'high', answer: 'Le dossier médical est conservé 20 ans [1].', droppedClaims: 1 });
    expect(answer.sources.map((s) => s.path)).toEqual(['rgpd/14-conservation.md']);
    expect(streamed).toBe('Le dossier médical est conservé 20 ans [1].');
    expect(streamed).not.toContain('CNIL');
    expect(checks).toEqual([{ supported: 1, unsupported: 1, valid: true }]);
  });

  it('none supported: the answer is the refusal, in the question\'s language', async () => {
    const { a } = await setup();
    fake.script({ text: TWO_SENTENCES }, { text: '{"supported": []}' });
    const { answer, streamed } = await ask(a);
    expect(answer).toMatchObject({ state: 'outOfScope', outOfScope: true, answer: OUT_OF_SCOPE_ANSWERS.fr, sources: [], droppedClaims: 2 });
    expect(streamed).toBe('');
  });

  it('malformed, failed or late verification: the answer is shown with confidence low and the notice, never a crash', async () => {
    // The deadline is far above a local reply even on a busy machine, so only the late reply misses it.
    const { a, checks } = await setup({ CHAT_RELEVANCE_TIMEOUT_MS: '1500' });
    const replies = [{ text: 'Tout est juste.' }, { text: '{"supported": "1"}' }, { text: '{"supported": [7]}' }, { raw: '{"choices": [' }, { status: 500 }, { delayMs: 8000 }];
    for (const reply of replies) {
      fake.script({ text: TWO_SENTENCES }, reply);
      const { answer } = await ask(a);
      expect(answer).toMatchObject({ state: 'answered', confidence: 'low', notice: LOW_CONFIDENCE_NOTICES.fr, answer: TWO_SENTENCES, droppedClaims: 0 });
    }
    expect(checks.map((c) => c.valid)).toEqual(replies.map(() => false));
  });

  it('off (CHAT_CLAIM_CHECK=off): one call, the answer streamed as it comes', async () => {
    const { a, checks } = await setup({ CHAT_CLAIM_CHECK: 'off' });
    fake.requests.length = 0;
    fake.script({ text: TWO_SENTENCES });
    const { answer } = await ask(a);
    expect(fake.requests).toHaveLength(1);
    expect(answer).toMatchObject({ state: 'answered', answer: TWO_SENTENCES });
    expect(checks).toEqual([]);
  });
});

describe('the claim check through Claude (Anthropic wire fake, real SDK)', () => {
  it('sentences cited natively (no [n]) are checked against the cited passages; an unsupported one is removed', async () => {
    const claude = await startAnthropicFake();
    try {
      const config = testConfig({ CORPUS_DIR: root, CHAT_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: claude.url, CHAT_MODEL: 'claude-test' });
      const a = createDocsAssistant({ config, providers: createProviders(config, { logger: silentLogger() }), persist: false });
      await a.ready();
      claude.script(
        { blocks: [{ text: 'Vingt ans. Puis la CNIL les détruit.', citations: [{ searchResultIndex: 0, citedText: '20 ans' }] }] },
        { text: '{"supported": [1]}' },
      );
      const answer = await a.ask({ question: QUESTION, settings: a.defaults() });
      expect(claude.requests).toHaveLength(2);
      const check = claude.requests[1]!.body as { max_tokens: number; messages: Array<{ content: unknown }> };
      expect(check.max_tokens).toBeLessThanOrEqual(80);
      expect(JSON.stringify(check.messages)).toContain('(2) Puis la CNIL les détruit. — cites none');
      expect(answer).toMatchObject({ state: 'answered', confidence: 'high', answer: 'Vingt ans.', droppedClaims: 1 });
      expect(answer.sources.map((s) => s.href)).toEqual(['/docs/rgpd/14-conservation.md#exemples']);
    } finally {
      await claude.close();
    }
  });
});

describe('the claim check in /metrics (palabre serve)', () => {
  it('counts supported and removed sentences and the check\'s latency; the client never reads a removed one, the admin does', async () => {
    const data = mkdtempSync(join(tmpdir(), 'palabre-claims-'));
    const config = loadPalabreConfig({
      env: { CORPUS_DIR: root, DATA_DIR: data, PORT: '0', MQTT_EMBEDDED_PORT: '0', CHAT_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test-openai', OPENAI_BASE_URL: `${fake.url}/v1`, CHAT_MODEL: 'gpt-4o-mini', CHAT_SCORE_THRESHOLD: '0.3', DOCS_LEXICONS: 'off', LLM_MAX_RETRIES: '0', ADMIN_PASSWORD, SESSION_SECRET: 'claims-session-secret-0123456789abcdef' },
      dotenvPath: null,
    });
    const running = await startServer({ config, logger: silentLogger(), surfaces: [async () => docsSurface] });
    try {
      const base = running.ctx.publicUrl.replace(/\/$/, '');
      fake.script({ text: TWO_SENTENCES }, { text: '{"supported": [1]}' });
      const res = await fetch(`${base}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: QUESTION }) });
      const body = (await res.json()) as { answer: string };
      expect(body.answer).toBe('Le dossier médical est conservé 20 ans [1].');
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/palabre_docs_claims_total\{verdict="supported"\} 1/);
      expect(metrics).toMatch(/palabre_docs_claims_total\{verdict="unsupported"\} 1/);
      expect(metrics).toMatch(/palabre_docs_claim_check_calls_total\{outcome="valid"\} 1/);
      expect(metrics).toMatch(/palabre_docs_claim_check_seconds_count 1/);
      const cookie = await adminLogin(base);
      const read = async () => ((await (await fetch(`${base}/admin/docs/gaps?format=json`, { headers: { cookie } })).json()) as { dropped: Array<{ question: string; sentence: string }> }).dropped;
      await expect.poll(async () => (await read()).length, { timeout: 5000, interval: 50 }).toBe(1);
      expect(await read()).toEqual([{ question: QUESTION, sentence: 'Il est ensuite détruit par la CNIL [1].', at: expect.any(String) }]);
    } finally {
      await running.shutdown('test');
      rmSync(data, { recursive: true, force: true });
    }
  });
});
