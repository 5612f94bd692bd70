import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DestinationStream } from 'pino';
import { createLogger } from '../../core/log.js';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { checkModels, modelProblemLines, RECHECK_INTERVAL_MS, skullPrimaryRoute, watchModels, type ListModels, type ModelStatus } from '../../actors/llm/modelStatus.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropicFake.js';
import { startGeminiFake, type GeminiFake } from '../fakes/geminiFake.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openaiFake.js';

/** The model check through the official SDKs' models lists, against the wire fakes. */
let openai: OpenAIFake;
let anthropic: AnthropicFake;
let gemini: GeminiFake;
beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([startOpenAIFake(), startAnthropicFake(), startGeminiFake()]);
});
afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
});

const config = (env: Record<string, string>) => loadPalabreConfig({ env: { LOG_LEVEL: 'silent', ...env }, dotenvPath: null, file: '' });
const find = (all: ModelStatus[], surface: string, model: string) => all.find((s) => s.surface === surface && s.model === model);

describe('checkModels', () => {
  it('OpenAI: shutdown_date → deprecated with the date, absent → missing, listed → ok (one list per endpoint)', async () => {
    openai.reset();
    openai.setModels([{ id: 'gpt-5-mini', shutdownDate: '2026-12-11' }, { id: 'gpt-6-luna' }, { id: 'deepseek-flash' }]);
    const all = await checkModels(config({
      OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${openai.url}/v1`, SURFACES: 'skull,corrections',
      AI_MODEL: 'gpt-5-mini', AI_FALLBACK_MODEL: 'gpt-6-luna', CORRECTION_MODEL: 'gone-model',
    }));
    expect(find(all, 'skull', 'gpt-5-mini')).toEqual({ surface: 'skull', provider: 'openai', model: 'gpt-5-mini', variable: 'AI_MODEL', status: 'deprecated', shutdownDate: '2026-12-11' });
    expect(find(all, 'skull', 'gpt-6-luna')).toMatchObject({ status: 'ok', variable: 'AI_FALLBACK_MODEL' });
    expect(find(all, 'corrections', 'gone-model')).toMatchObject({ status: 'missing', variable: 'CORRECTION_MODEL' });
    // Three models, one endpoint and key: the list was read once, with the key.
    const lists = openai.requests.filter((r) => r.method === 'GET');
    expect(lists).toHaveLength(1);
    expect(lists[0]!.path).toBe('/v1/models');
    expect(lists[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(modelProblemLines(all)).toEqual([
      'model gpt-5-mini (skull, openai) shuts down on 2026-12-11: set AI_MODEL to a current model (docs/providers.md)',
      'model gone-model (corrections) is not offered by openai (openai does not list gone-model): set CORRECTION_MODEL to a model it lists (docs/providers.md)',
    ]);
  });

  it('the docs relevance-call model is checked too when it differs from CHAT_MODEL', async () => {
    openai.reset();
    openai.setModels([{ id: 'chat-big' }]);
    const all = await checkModels(config({
      OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${openai.url}/v1`, SURFACES: 'docs',
      CHAT_PROVIDER: 'openai', CHAT_MODEL: 'chat-big', CHAT_RELEVANCE_MODEL: 'judge-small',
    }));
    expect(find(all, 'docs', 'chat-big')).toMatchObject({ status: 'ok', variable: 'CHAT_MODEL' });
    expect(find(all, 'docs', 'judge-small')).toMatchObject({ status: 'missing', variable: 'CHAT_RELEVANCE_MODEL' });
  });

  it('Anthropic: lifecycle and retires_at; a retired model is missing', async () => {
    anthropic.setModels([
      { id: 'claude-sonnet-5-5' },
      { id: 'claude-sonnet-4-5', lifecycle: 'deprecated', retiresAt: '2026-11-30T00:00:00Z' },
      { id: 'claude-old', lifecycle: 'retired', retiresAt: '2026-01-05T00:00:00Z' },
    ]);
    const base = { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: anthropic.url, SURFACES: 'docs' };
    expect(await checkModels(config(base))).toEqual([{ surface: 'docs', provider: 'anthropic', model: 'claude-sonnet-5-5', variable: 'CHAT_MODEL', status: 'ok' }]);
    expect(await checkModels(config({ ...base, CHAT_MODEL: 'claude-sonnet-4-5' }))).toMatchObject([{ status: 'deprecated', shutdownDate: '2026-11-30' }]);
    expect(await checkModels(config({ ...base, CHAT_MODEL: 'claude-old' }))).toMatchObject([{ status: 'missing', detail: 'anthropic lists claude-old as retired' }]);
    const list = anthropic.requests.find((r) => r.method === 'GET')!;
    expect(list.path).toBe('/v1/models');
    // The SDK sends the key (as x-api-key or bearer, by version): the one configured.
    expect(`${list.headers['x-api-key'] ?? ''} ${list.headers.authorization ?? ''}`).toContain('sk-ant-test');
  });

  it('Gemini (Developer API): the T2 Live model and the embeddings model against models.list', async () => {
    gemini.setModels([{ id: 'gemini-3.8-live' }, { id: 'gemini-embedding-001' }]);
    const all = await checkModels(config({ GEMINI_API_KEY: 'g-test', GOOGLE_GEMINI_BASE_URL: gemini.url, SURFACES: 't2,docs', EMBEDDINGS_PROVIDER: 'gemini', CHAT_PROVIDER: 'offline' }));
    expect(find(all, 't2', 'gemini-3.8-live')).toMatchObject({ provider: 'gemini', status: 'ok', variable: 'T2_LIVE_MODEL' });
    expect(find(all, 'embeddings', 'gemini-embedding-001')).toMatchObject({ status: 'ok', variable: 'EMBEDDINGS_MODEL' });
    expect(find(all, 'docs', 'claude-sonnet-5-5')).toMatchObject({ provider: 'offline', status: 'unchecked' });
  });

  it('a models endpoint that errors or drops the connection gives unchecked with the reason, never a throw', async () => {
    const env = { OPENAI_API_KEY: 'sk-secret-value', OPENAI_BASE_URL: `${openai.url}/v1`, SURFACES: 'skull' };
    openai.setModels({ status: 500, errorMessage: 'catalog down' });
    const failed = await checkModels(config(env));
    expect(failed.map((s) => s.status)).toEqual(['unchecked', 'unchecked']);
    expect(failed[0]!.detail).toMatch(/^could not list openai models: 500/);
    openai.setModels({ drop: true });
    const dropped = await checkModels(config(env));
    expect(dropped[0]).toMatchObject({ status: 'unchecked' });
    expect(dropped[0]!.detail).toMatch(/could not list openai models/);
    openai.setModels({ delayMs: 5_000 });
    const slow = await checkModels(config(env), { timeoutMs: 200 });
    expect(slow[0]).toMatchObject({ status: 'unchecked' });
    for (const s of [...failed, ...dropped, ...slow]) expect(JSON.stringify(s)).not.toContain('sk-secret-value');
  });

  it('the offline provider is unchecked, with no request anywhere', async () => {
    const all = await checkModels(config({ SURFACES: 'skull' }));
    expect(all).toEqual([
      { surface: 'skull', provider: 'offline', model: 'gpt-6.1-terra', variable: 'AI_MODEL', status: 'unchecked', detail: 'offline provider (no network): nothing to check' },
      { surface: 'skull', provider: 'offline', model: 'gpt-6-luna', variable: 'AI_FALLBACK_MODEL', status: 'unchecked', detail: 'offline provider (no network): nothing to check' },
    ]);
  });
});

describe('skullPrimaryRoute', () => {
  const s = (model: string, status: ModelStatus['status']): ModelStatus => ({ surface: 'skull', provider: 'openai', model, variable: 'AI_MODEL', status });
  it('routes a missing primary to a listed fallback only', () => {
    expect(skullPrimaryRoute([s('a', 'missing'), s('b', 'ok')], 'a', 'b')).toBe('b');
    expect(skullPrimaryRoute([s('a', 'missing'), s('b', 'deprecated')], 'a', 'b')).toBe('b');
    expect(skullPrimaryRoute([s('a', 'missing'), s('b', 'missing')], 'a', 'b')).toBeUndefined();
    expect(skullPrimaryRoute([s('a', 'missing'), s('b', 'unchecked')], 'a', 'b')).toBeUndefined();
    expect(skullPrimaryRoute([s('a', 'deprecated'), s('b', 'ok')], 'a', 'b')).toBeUndefined();
    expect(skullPrimaryRoute([s('a', 'unchecked'), s('b', 'ok')], 'a', 'b')).toBeUndefined();
  });
});

describe('watchModels', () => {
  it('checks once started, again every 24 h, never after stop; warns once per check for each problem', async () => {
    vi.useFakeTimers();
    try {
      const lines: string[] = [];
      const stream: DestinationStream = { write: (s: string) => void lines.push(s) };
      // A stand-in for the list (this test is about scheduling; the SDK paths are tested above).
      let calls = 0;
      const listModels: ListModels = async () => {
        calls += 1;
        return [{ id: 'gpt-6.1-terra', ...(calls > 1 ? { shutdownDate: '2027-06-01' } : {}) }];
      };
      const watch = watchModels(config({ OPENAI_API_KEY: 'sk-test', SURFACES: 'skull' }), { logger: createLogger({ destination: stream, level: 'info' }), listModels });
      expect(watch.current().map((s) => [s.model, s.status, s.detail])).toEqual([['gpt-6.1-terra', 'unchecked', 'check pending'], ['gpt-6-luna', 'unchecked', 'check pending']]);
      expect(calls).toBe(0);
      watch.start();
      watch.start();
      const first = await watch.firstCheck;
      expect(calls).toBe(1);
      expect(first.map((s) => s.status)).toEqual(['ok', 'missing']);
      await vi.advanceTimersByTimeAsync(RECHECK_INTERVAL_MS - 1);
      expect(calls).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(calls).toBe(2);
      expect(watch.current()[0]).toMatchObject({ status: 'deprecated', shutdownDate: '2027-06-01' });
      watch.stop();
      await vi.advanceTimersByTimeAsync(3 * RECHECK_INTERVAL_MS);
      expect(calls).toBe(2);
      const warns = lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 40).map((l) => l.msg);
      expect(warns).toEqual([
        'model gpt-6-luna (skull) is not offered by openai (openai does not list gpt-6-luna): set AI_FALLBACK_MODEL to a model it lists (docs/providers.md)',
        'model gpt-6.1-terra (skull, openai) shuts down on 2027-06-01: set AI_MODEL to a current model (docs/providers.md)',
        'model gpt-6-luna (skull) is not offered by openai (openai does not list gpt-6-luna): set AI_FALLBACK_MODEL to a model it lists (docs/providers.md)',
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
