/** createProviders: auto-selection, offline fallback, metrics, and keys that never reach a log line. */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviders } from '../../actors/llm/providers.js';
import { createLogger, silentLogger } from '../../core/log.js';
import { createMetrics } from '../../core/metrics.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropicFake.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openaiFake.js';

const logger = silentLogger();

describe('provider registry: selection', () => {
  it('no key → only offline; auto and every name resolve to offline', () => {
    const reg = createProviders({}, { logger });
    expect(reg.available()).toEqual(['offline']);
    expect(reg.resolve('auto').name).toBe('offline');
    expect(reg.resolve('anthropic').name).toBe('offline');
    expect(reg.get('openai')).toBeUndefined();
  });

  it('auto prefers anthropic, then openai, then gemini', () => {
    expect(createProviders({ GEMINI_API_KEY: 'g', OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a' }, { logger }).resolve('auto').name).toBe('anthropic');
    expect(createProviders({ GEMINI_API_KEY: 'g', OPENAI_API_KEY: 'o' }, { logger }).resolve('auto').name).toBe('openai');
    expect(createProviders({ GEMINI_API_KEY: 'g' }, { logger }).resolve('auto').name).toBe('gemini');
    const all = createProviders({ GEMINI_API_KEY: 'g', OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a' }, { logger });
    expect(all.available()).toEqual(['anthropic', 'openai', 'gemini', 'offline']);
    expect(all.resolve('gemini').name).toBe('gemini');
  });

  it('an OpenAI-compatible base URL without key (Ollama, llama.cpp) counts as configured', () => {
    const reg = createProviders({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }, { logger });
    expect(reg.available()).toEqual(['openai', 'offline']);
  });

  it('Vertex needs a project, not an API key', () => {
    expect(createProviders({ GEMINI_VERTEX: true }, { logger }).available()).toEqual(['offline']);
    expect(createProviders({ GEMINI_VERTEX: true, GOOGLE_CLOUD_PROJECT: 'p' }, { logger }).available()).toEqual(['gemini', 'offline']);
  });
});

describe('provider registry: calls', () => {
  let openai: OpenAIFake;
  let anthropic: AnthropicFake;
  beforeAll(async () => {
    [openai, anthropic] = await Promise.all([startOpenAIFake(), startAnthropicFake()]);
  });
  afterAll(async () => {
    await Promise.all([openai.close(), anthropic.close()]);
  });

  it('counts calls, latency and tokens by provider/model/purpose in the metrics registry', async () => {
    const metrics = createMetrics({ defaults: false });
    const reg = createProviders({ OPENAI_API_KEY: 'sk-a', OPENAI_BASE_URL: `${openai.url}/v1` }, { logger, metrics });
    openai.script({ text: 'oui', model: 'gpt-5-mini-2025-08-07', usage: { prompt_tokens: 100, completion_tokens: 3, cached_tokens: 64 } }, { status: 503 });
    const r = await reg.resolve('auto').generate({ model: 'gpt-5-mini', purpose: 'skull', messages: [{ role: 'user', content: 'x' }] });
    expect(r.provider).toBe('openai');
    await expect(reg.resolve('openai').generate({ model: 'gpt-5-mini', purpose: 'skull', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ kind: 'server' });
    const text = await metrics.registry.metrics();
    expect(text).toContain('palabre_llm_calls_total{provider="openai",model="gpt-5-mini-2025-08-07",purpose="skull",outcome="ok"} 1');
    expect(text).toContain('palabre_llm_calls_total{provider="openai",model="gpt-5-mini",purpose="skull",outcome="error"} 1');
    expect(text).toContain('palabre_llm_tokens_total{provider="openai",model="gpt-5-mini-2025-08-07",direction="cached"} 64');
    expect(text).toContain('palabre_llm_tokens_total{provider="openai",model="gpt-5-mini-2025-08-07",direction="input"} 100');
    expect(text).toMatch(/palabre_llm_latency_seconds_count\{provider="openai",model="gpt-5-mini-2025-08-07",purpose="skull"\} 1/);
  });

  it('logs a failure with its kind and status, never the key', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk: Buffer, _enc, cb) { lines.push(chunk.toString()); cb(); } });
    const log = createLogger({ destination: sink, level: 'debug' });
    const key = 'sk-ant-api03-SECRETSECRETSECRET';
    const reg = createProviders({ ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: anthropic.url }, { logger: log });
    anthropic.script({ status: 401, errorMessage: `invalid x-api-key ${key}` });
    await expect(reg.resolve('auto').generate({ model: 'claude-haiku-5-5', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ kind: 'auth' });
    log.flush();
    await new Promise<void>((resolve) => setImmediate(resolve));
    const out = lines.join('');
    expect(out).toContain('"kind":"auth"');
    expect(out).toContain('"status":401');
    expect(out).not.toContain('SECRETSECRETSECRET');
  });

  it('counts an aborted call as aborted and logs nothing for it', async () => {
    const metrics = createMetrics({ defaults: false });
    const reg = createProviders({}, { logger, metrics });
    const ac = new AbortController();
    ac.abort();
    await expect(reg.resolve('auto').generate({ model: 'm', purpose: 'chat', messages: [{ role: 'user', content: 'x' }], signal: ac.signal })).rejects.toMatchObject({ kind: 'aborted' });
    expect(await metrics.registry.metrics()).toContain('palabre_llm_calls_total{provider="offline",model="m",purpose="chat",outcome="aborted"} 1');
  });
});
