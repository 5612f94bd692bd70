import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DestinationStream } from 'pino';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { createLogger } from '../../core/log.js';
import { startServer, type PalabreServer as RunningServer } from '../../actors/serve.js';
import { skullSurface } from '../../actors/skull/surface.js';
import type { ModelStatus } from '../../actors/llm/modelStatus.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openaiFake.js';
import { Listener } from '../skull/support.js';

/**
 * The background model check of `palabre serve`: real server, real SDK, the OpenAI wire fake's
 * `GET /v1/models`, the real Skull surface on the embedded broker.
 */
const dir = mkdtempSync(join(tmpdir(), 'palabre-models-'));
let fake: OpenAIFake;
beforeAll(async () => { fake = await startOpenAIFake(); });
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});
const running: RunningServer[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.shutdown('test');
  fake.reset();
});

interface LogLine { level: number; msg: string; [k: string]: unknown }

function setup(name: string, extra: Record<string, string>) {
  const lines: string[] = [];
  const stream: DestinationStream = { write: (s: string) => void lines.push(s) };
  const config = loadPalabreConfig({
    env: { PORT: '0', MQTT_EMBEDDED_PORT: '0', DATA_DIR: join(dir, name), OPENAI_API_KEY: 'sk-process-secret', OPENAI_BASE_URL: `${fake.url}/v1`, ...extra },
    dotenvPath: null,
    file: '',
  });
  const logs = (): LogLine[] => lines.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogLine);
  return { config, logger: createLogger({ destination: stream, level: 'debug' }), logs };
}

async function health(server: RunningServer): Promise<{ text: string; models: ModelStatus[] }> {
  const text = await (await fetch(`${server.ctx.publicUrl}/healthz`)).text();
  return { text, models: (JSON.parse(text) as { models: ModelStatus[] }).models };
}

describe('model check at start', () => {
  it('a deprecated model: shutdown date in /healthz and one warn line naming the date and the variable; keys never shown', async () => {
    fake.setModels([{ id: 'gpt-5-mini', shutdownDate: '2026-12-11' }, { id: 'gpt-6-luna' }]);
    const { config, logger, logs } = setup('deprecated', { AI_MODEL: 'gpt-5-mini', SKULL_API_KEY: 'sk-skull-secret', SKULL_BASE_URL: `${fake.url}/v1` });
    const server = await startServer({ config, logger, surfaces: [] });
    running.push(server);
    await server.models.firstCheck;
    const { text, models } = await health(server);
    expect(models).toContainEqual({ surface: 'skull', provider: 'openai', model: 'gpt-5-mini', variable: 'AI_MODEL', status: 'deprecated', shutdownDate: '2026-12-11' });
    expect(models).toContainEqual({ surface: 'skull', provider: 'openai', model: 'gpt-6-luna', variable: 'AI_FALLBACK_MODEL', status: 'ok' });
    const warns = logs().filter((l) => l.level === 40 && l.model === 'gpt-5-mini');
    expect(warns).toHaveLength(1);
    expect(warns[0]!.msg).toBe('model gpt-5-mini (skull, openai) shuts down on 2026-12-11: set AI_MODEL to a current model (docs/providers.md)');
    expect(warns[0]).toMatchObject({ shutdownDate: '2026-12-11', variable: 'AI_MODEL', status: 'deprecated' });
    // The surface key was used for the list, and no key appears in /healthz or the logs.
    expect(fake.requests.find((r) => r.method === 'GET')!.headers.authorization).toBe('Bearer sk-skull-secret');
    for (const secret of ['sk-skull-secret', 'sk-process-secret']) {
      expect(text).not.toContain(secret);
      expect(JSON.stringify(logs())).not.toContain(secret);
    }
  });

  it('a models endpoint that hangs or errors never delays the start: unchecked, with the reason', async () => {
    fake.setModels({ delayMs: 30_000 });
    const hung = setup('hung', {});
    const server = await startServer({ config: hung.config, logger: hung.logger, surfaces: [] });
    running.push(server);
    // Started and serving while the list request is still unanswered.
    const [listReq] = await fake.waitForRequests(1);
    expect(listReq!.path).toBe('/v1/models');
    const during = await health(server);
    expect(during.models.length).toBeGreaterThan(0);
    for (const m of during.models) expect(m).toMatchObject({ status: 'unchecked', detail: 'check pending' });
    // Shutdown does not wait for it: the request in flight is aborted.
    expect(await server.shutdown('test')).toEqual({ forced: false });
    running.length = 0;
    expect(await listReq!.done).toBe('client-closed');
    fake.reset();

    fake.setModels({ status: 503, errorMessage: 'models list unavailable' });
    const failing = setup('failing', {});
    const second = await startServer({ config: failing.config, logger: failing.logger, surfaces: [] });
    running.push(second);
    await second.models.firstCheck;
    const after = await health(second);
    const skull = after.models.find((m) => m.model === 'gpt-6.1-terra')!;
    expect(skull.status).toBe('unchecked');
    expect(skull.detail).toMatch(/^could not list openai models: 503/);
    expect(failing.logs().filter((l) => l.level >= 40 && /model/.test(l.msg))).toEqual([]);
  });

  it('a missing Skull primary with a listed fallback: Skull keeps answering with the fallback, and says so', async () => {
    fake.setModels([{ id: 'gpt-5-nano' }]);
    fake.setDefault({ text: 'Je suis Skull, le crâne qui parle.' });
    const { config, logger, logs } = setup('missing', { SURFACES: 'skull', AI_MODEL: 'gpt-5-mini', AI_FALLBACK_MODEL: 'gpt-5-nano', SKULL_HEALTH_INTERVAL_MS: '0' });
    const server = await startServer({ config, logger, surfaces: [async () => skullSurface] });
    running.push(server);
    const statuses = await server.models.firstCheck;
    expect(statuses.find((s) => s.model === 'gpt-5-mini')).toMatchObject({ status: 'missing', variable: 'AI_MODEL' });
    const listener = await Listener.open(server.ctx.mqtt.url, ['ai/#']);
    try {
      await listener.publish('ai/request', JSON.stringify({ text: 'Bonjour, qui es-tu ?' }));
      await listener.waitFor('ai/usage');
      const [response] = listener.on('ai/response');
      expect(response).toMatchObject({ text: 'Je suis Skull, le crâne qui parle.' });
    } finally {
      await listener.close();
      fake.setDefault({ text: 'ok' });
    }
    const chats = fake.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(chats.length).toBeGreaterThan(0);
    // Not one call was spent on the missing primary.
    expect(chats.map((r) => (r.body as { model: string }).model)).toEqual(chats.map(() => 'gpt-5-nano'));
    expect(logs().some((l) => l.level === 40 && l.msg === 'model gpt-5-mini is not offered by openai: calls go to gpt-5-nano')).toBe(true);
  });
});
