import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAIFake } from '../fakes/openaiFake.js';
import { freePort, spawnPalabre, until } from './support.js';

/**
 * SIGTERM of `palabre skull` (the process, its embedded broker) with a turn in flight and one
 * queued: both are answered on ai/response before it exits 0.
 */
describe('fault suite: palabre skull', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  it('SIGTERM answers the turn in flight and the queued one, then exits 0', async () => {
    const openai = await startOpenAIFake({ strict: false });
    cleanups.push(() => openai.close());
    openai.script({ delayMs: 2000, text: 'Première réponse.' }, { text: 'Deuxième réponse.' });
    const mqttPort = await freePort();
    const skull = spawnPalabre('skull', {
      MQTT_EMBEDDED_PORT: String(mqttPort),
      OPENAI_API_KEY: 'fake-key',
      OPENAI_BASE_URL: `${openai.url}/v1`,
      SKULL_PROVIDER: 'openai',
      LLM_MAX_RETRIES: '0',
      SKULL_HEALTH_INTERVAL_MS: '100',
      SHUTDOWN_TIMEOUT_MS: '15000',
    });
    cleanups.push(async () => {
      if (skull.child.exitCode === null) skull.child.kill('SIGKILL');
      await skull.exited;
    });
    await until(() => skull.stdout().includes('palabre skull ready'), 'skull ready', 60_000);
    const listener = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { reconnectPeriod: 0 });
    cleanups.push(() => listener.endAsync(true));
    const responses: string[] = [];
    let queued = 0;
    listener.on('message', (topic, payload) => {
      if (topic === 'ai/response') responses.push((JSON.parse(String(payload)) as { text: string }).text);
      if (topic === 'ai/health') queued = (JSON.parse(String(payload)) as { queued?: number }).queued ?? 0;
    });
    await listener.subscribeAsync(['ai/response', 'ai/health'], { qos: 1 });
    await listener.publishAsync('ai/request', JSON.stringify({ ts_ms: 0, text: 'Première question ?' }), { qos: 1 });
    await openai.waitForRequests(1);
    await listener.publishAsync('ai/request', JSON.stringify({ ts_ms: 0, text: 'Deuxième question ?' }), { qos: 1 });
    await until(() => queued === 1, 'the second turn queued');
    skull.child.kill('SIGTERM');
    const { code } = await skull.exited;
    expect(code).toBe(0);
    expect(responses).toEqual(['Première réponse.', 'Deuxième réponse.']);
    const drained = skull.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'skull drained');
    expect(drained).toMatchObject({ drained: 2, cut: { inFlight: 0, queued: 0, kept: 0 } });
  }, 90_000);
});
