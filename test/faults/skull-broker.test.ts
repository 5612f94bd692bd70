import mqtt, { type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../core/runtime.js';
import { type SkullService } from '../../transports/mqtt/skullEdge.js';
import { startWiredSkull } from '../../actors/skull/surface.js';
import { requireBinary } from '../support/requires.js';
import { memoryLogger, ScriptedProvider, testConfig, uniquePrefix } from '../skull/support.js';
import { KillableMosquitto, resubscribed, until } from './support.js';

/**
 * Broker outage during a Skull turn, on a real mosquitto killed (SIGKILL) and restarted: the reply
 * made while the broker is away is kept and published once Skull is back; past SKULL_REPLY_TTL_MS
 * it is dropped, logged and counted — never lost silently. Asserts on what was published.
 */
const mosquitto = requireBinary('mosquitto', 'mosquitto');

describe.skipIf(!mosquitto.ok)(`skull across a broker restart (${mosquitto.reason})`, () => {
  const open: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close().catch(() => undefined);
  });

  async function setup(env: Record<string, string> = {}) {
    const broker = await KillableMosquitto.start();
    open.push(() => broker.close());
    const prefix = uniquePrefix();
    let clock = 1_000_000;
    const provider = new ScriptedProvider();
    provider.manual = true;
    const { logger, lines } = memoryLogger();
    const runtime = new Runtime();
    // Skull retries 3 s after the loss, the listener every 50 ms: the listener has resubscribed on
    // the restarted broker (no persistence: subscriptions are gone) before Skull flushes.
    const svc: SkullService = await startWiredSkull({
      config: testConfig({ SKULL_TOPIC_PREFIX: prefix, ...env }),
      logger,
      runtime,
      provider,
      mqttUrl: broker.url,
      healthIntervalMs: 0,
      reconnectBaseMs: 3000,
      now: () => clock,
      random: () => 0,
    });
    open.push(async () => {
      await svc.stop();
      runtime.shutdown();
    });
    const received: Array<{ topic: string; payload: string }> = [];
    const listener: MqttClient = await mqtt.connectAsync(broker.url, { reconnectPeriod: 50, protocolVersion: 4 });
    open.push(() => listener.endAsync(true));
    listener.on('message', (topic, payload) => received.push({ topic, payload: payload.toString('utf8') }));
    await listener.subscribeAsync(`${prefix}/ai/#`, { qos: 1 });
    const responses = () => received.filter((m) => m.topic === `${prefix}/ai/response`).map((m) => JSON.parse(m.payload) as { text: string });
    return { broker, svc, provider, listener, prefix, responses, lines, advance: (ms: number) => (clock += ms) };
  }

  it('a reply made while the broker is down is kept, then published once Skull reconnects', async () => {
    const { broker, svc, provider, listener, prefix, responses } = await setup();
    await listener.publishAsync(`${prefix}/ai/request`, JSON.stringify({ ts_ms: 0, text: 'Raconte une blague courte.' }), { qos: 1 });
    await until(() => provider.waiting === 1, 'the model call');
    await broker.kill();
    await until(() => !svc.client.connected, 'skull sees the broker gone');
    provider.release(); // the reply is produced while the broker is away
    await until(() => svc.health().replies_kept === 1, 'the reply kept');
    await broker.up();
    await until(() => responses().length === 1, 'the kept reply published', 15_000);
    expect(responses()[0]!.text).toContain('Skull');
    // ai/usage follows ai/response: the reply leaves the outbox once both are acknowledged.
    await until(() => svc.health().replies_kept === 0, 'the outbox emptied');
    const h = svc.health();
    expect(h).toMatchObject({ replies_kept: 0, replies_expired: 0, publish_errors: 0 });
  });

  it('past SKULL_REPLY_TTL_MS the kept reply is dropped, logged and counted in ai/health', async () => {
    const { broker, svc, provider, listener, prefix, responses, lines, advance } = await setup({ SKULL_REPLY_TTL_MS: '30000' });
    await listener.publishAsync(`${prefix}/ai/request`, JSON.stringify({ ts_ms: 0, text: 'Quelle heure est-il ?' }), { qos: 1 });
    await until(() => provider.waiting === 1, 'the model call');
    await broker.kill();
    await until(() => !svc.client.connected, 'skull sees the broker gone');
    provider.release();
    await until(() => svc.health().replies_kept === 1, 'the reply kept');
    advance(30_001);
    await broker.up();
    // Both clients' subscriptions back before the next request (the CI once sent it in between,
    // and Skull never saw it).
    await until(() => resubscribed(svc.client) && resubscribed(listener) && svc.health().replies_kept === 0, 'reconnected, resubscribed and the outbox emptied', 15_000);
    expect(svc.health().replies_expired).toBe(1);
    expect(lines.some((l) => l.msg === 'kept reply expired before the broker came back: not sent')).toBe(true);
    // Skull answers again once reconnected; the expired reply never appears.
    await listener.publishAsync(`${prefix}/ai/request`, JSON.stringify({ ts_ms: 0, text: 'Et maintenant ?' }), { qos: 1 });
    await until(() => provider.waiting === 1, 'the second call');
    provider.release();
    await until(() => responses().length === 1, 'the second reply');
    expect(svc.health().replies_expired).toBe(1);
  });
});
