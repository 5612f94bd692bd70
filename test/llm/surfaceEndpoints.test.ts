import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactConfig } from '../../core/config/load.js';
import { loadPalabreConfig, PALABRE_SECTIONS } from '../../actors/palabreConfig.js';
import { silentLogger } from '../../core/log.js';
import { createProviders } from '../../actors/llm/providers.js';
import { surfaceProvider } from '../../actors/llm/surfaceEndpoints.js';
import { checkModels } from '../../actors/llm/modelStatus.js';
import { providersPerSurface } from '../../actors/llm/llmServices.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openaiFake.js';

/**
 * One endpoint and key per surface: Skull on one OpenAI-compatible server, corrections on another
 * (DeepSeek in the specs), through the real OpenAI SDK against two wire fakes.
 */
let skullFake: OpenAIFake;
let correctionsFake: OpenAIFake;
let sharedFake: OpenAIFake;
beforeAll(async () => {
  [skullFake, correctionsFake, sharedFake] = await Promise.all([startOpenAIFake(), startOpenAIFake(), startOpenAIFake()]);
});
afterAll(async () => {
  await Promise.all([skullFake.close(), correctionsFake.close(), sharedFake.close()]);
});

const env = () => ({
  LOG_LEVEL: 'silent',
  OPENAI_API_KEY: 'sk-shared',
  OPENAI_BASE_URL: `${sharedFake.url}/v1`,
  SKULL_BASE_URL: `${skullFake.url}/v1`,
  SKULL_API_KEY: 'sk-skull',
  CORRECTION_BASE_URL: `${correctionsFake.url}/v1`,
  CORRECTION_API_KEY: 'sk-deepseek',
});

describe('per-surface endpoint and key', () => {
  it('two surfaces call two servers, each with its own key; the others keep the shared one', async () => {
    const config = loadPalabreConfig({ env: env(), dotenvPath: null, file: '' });
    const registry = createProviders(config, { logger: silentLogger() });
    const skull = surfaceProvider(registry, config, 'skull');
    const corrections = surfaceProvider(registry, config, 'corrections');
    const docs = surfaceProvider(registry, config, 'docs');
    await skull.generate({ model: 'gpt-6.1-terra', messages: [{ role: 'user', content: 'Salut' }] });
    await corrections.generate({ model: 'deepseek-flash', messages: [{ role: 'user', content: 'Corrige' }] });
    await docs.generate({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'RGPD ?' }] });
    expect(skullFake.requests.map((r) => [r.path, r.headers.authorization, (r.body as { model: string }).model])).toEqual([['/v1/chat/completions', 'Bearer sk-skull', 'gpt-6.1-terra']]);
    expect(correctionsFake.requests.map((r) => [r.path, r.headers.authorization, (r.body as { model: string }).model])).toEqual([['/v1/chat/completions', 'Bearer sk-deepseek', 'deepseek-flash']]);
    expect(sharedFake.requests.map((r) => [r.path, r.headers.authorization])).toEqual([['/v1/chat/completions', 'Bearer sk-shared']]);
    // One client per endpoint and key: asking again returns the same provider.
    expect(surfaceProvider(registry, config, 'skull')).toBe(skull);
    expect(providersPerSurface({ config, providers: registry })).toMatchObject({ skull: 'openai', corrections: 'openai', docs: 'openai' });
  });

  it('the model check lists each server with the surface key', async () => {
    for (const f of [skullFake, correctionsFake, sharedFake]) f.reset();
    skullFake.setModels([{ id: 'gpt-6.1-terra' }, { id: 'gpt-6-luna' }]);
    correctionsFake.setModels([{ id: 'deepseek-flash' }]);
    const config = loadPalabreConfig({ env: { ...env(), SURFACES: 'skull,corrections' }, dotenvPath: null, file: '' });
    const all = await checkModels(config);
    expect(all.map((s) => [s.surface, s.model, s.status])).toEqual([
      ['skull', 'gpt-6.1-terra', 'ok'],
      ['skull', 'gpt-6-luna', 'ok'],
      ['corrections', 'deepseek-flash', 'ok'],
    ]);
    expect(skullFake.requests.map((r) => [r.method, r.headers.authorization])).toEqual([['GET', 'Bearer sk-skull']]);
    expect(correctionsFake.requests.map((r) => [r.method, r.headers.authorization])).toEqual([['GET', 'Bearer sk-deepseek']]);
    expect(sharedFake.requests).toHaveLength(0);
  });

  it('surface keys are secrets: redacted wherever the config is shown', () => {
    const config = loadPalabreConfig({ env: { ...env(), CHAT_API_KEY: 'sk-chat', T2_TEXT_API_KEY: 'sk-t2' }, dotenvPath: null, file: '' });
    // Each surface's section names its own key among its secrets.
    const secrets = PALABRE_SECTIONS.flatMap((s) => s.secrets ?? []);
    for (const key of ['SKULL_API_KEY', 'CHAT_API_KEY', 'CORRECTION_API_KEY', 'T2_TEXT_API_KEY']) expect(secrets).toContain(key);
    const shown = JSON.stringify(redactConfig(config, PALABRE_SECTIONS));
    for (const secret of ['sk-skull', 'sk-deepseek', 'sk-chat', 'sk-t2', 'sk-shared']) expect(shown).not.toContain(secret);
    expect(redactConfig(config, PALABRE_SECTIONS).SKULL_BASE_URL).toBe(`${skullFake.url}/v1`);
  });

  it('a surface endpoint with SKULL_PROVIDER=auto is OpenAI-compatible even when another provider has a key', async () => {
    skullFake.reset();
    const config = loadPalabreConfig({ env: { LOG_LEVEL: 'silent', ANTHROPIC_API_KEY: 'sk-ant', SKULL_BASE_URL: `${skullFake.url}/v1` }, dotenvPath: null, file: '' });
    const registry = createProviders(config, { logger: silentLogger() });
    const skull = surfaceProvider(registry, config, 'skull');
    expect(skull.name).toBe('openai');
    expect(surfaceProvider(registry, config, 'docs').name).toBe('anthropic');
    await skull.generate({ model: 'llama3.1:8b', messages: [{ role: 'user', content: 'Salut' }] });
    expect(skullFake.requests[0]!.headers.authorization).toBe('Bearer not-needed');
  });
});
