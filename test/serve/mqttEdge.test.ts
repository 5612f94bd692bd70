import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MqttClient } from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { silentLogger } from '../../core/log.js';
import { topicMatches } from '../../core/mqtt/topicFilter.js';
import { startServer } from '../../core/server.js';
import type { Surface } from '../../core/surfaceContract.js';
import { requireBinary } from '../support/requires.js';
import { Listener, mosquittoBroker, uniquePrefix, type TestBroker } from '../skull/support.js';

/**
 * The surface contract's MQTT edge: a test-only surface gets its connection from `ctx.mqtt` and
 * declares its subscriptions; core subscribes them in order, routes each message to it, ignores a
 * message no declared filter matches, reports the connection in /healthz, unsubscribes the
 * filters at the start of the drain (before `stop`) and ends the connection after it. On the
 * embedded aedes (MQTT 3.1.1) and on Debian's mosquitto as MQTT_URL (MQTT 5).
 */

describe('MQTT topic filters', () => {
  it('`+` is one level, `#` every level below and the level itself, `$` topics only by name', () => {
    expect(topicMatches('a/b', 'a/b')).toBe(true);
    expect(topicMatches('a/b', 'a/c')).toBe(false);
    expect(topicMatches('p/+/asr/text', 'p/dev-1/asr/text')).toBe(true);
    expect(topicMatches('p/+/asr/text', 'p/dev-1/x/asr/text')).toBe(false);
    expect(topicMatches('p/+/asr/text', 'p//asr/text')).toBe(true);
    expect(topicMatches('p/+', 'p')).toBe(false);
    expect(topicMatches('p/#', 'p')).toBe(true);
    expect(topicMatches('p/#', 'p/a/b/c')).toBe(true);
    expect(topicMatches('p/#', 'q/a')).toBe(false);
    expect(topicMatches('#', 'a/b')).toBe(true);
    expect(topicMatches('#', '$SYS/broker/uptime')).toBe(false);
    expect(topicMatches('+/broker/uptime', '$SYS/broker/uptime')).toBe(false);
    expect(topicMatches('$SYS/#', '$SYS/broker/uptime')).toBe(true);
  });

  it('a malformed filter is refused with the reason', () => {
    expect(() => topicMatches('a/#/b', 'a/x/b')).toThrow(/`#` must be a whole level, the last one/);
    expect(() => topicMatches('a/b#', 'a/b')).toThrow(/`#` must be a whole level/);
    expect(() => topicMatches('a/+b', 'a/b')).toThrow(/`\+` must be a whole level/);
    expect(() => topicMatches('', 'a')).toThrow(/empty/);
  });
});

const mosquitto = requireBinary('mosquitto', 'mosquitto');
const dir = mkdtempSync(join(tmpdir(), 'palabre-mqtt-edge-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the test surface saw, in order. */
interface Seen {
  /** Every message core routed to `onMessage`. */
  routed: Array<{ topic: string; text: string }>;
  /** Every message that reached its connection, routed or not. */
  wire: string[];
  client?: MqttClient;
  /** At the start of `stop`: whether an input sent then still reached the surface. */
  inputAfterUnsubscribe?: 'routed' | 'not routed';
}

/**
 * A relay: `<p>/+/in` → `<p>/<id>/out`, after its retained `<p>/config` (subscribed first). It
 * also subscribes `<p>/undeclared` by hand, outside its declaration.
 */
function relaySurface(prefix: string, seen: Seen, inject: (topic: string) => Promise<void>): Surface {
  return {
    name: 'relay',
    async start(ctx) {
      const connection = await ctx.mqtt.connect({ clientId: `relay-${prefix}`, will: { topic: `${prefix}/health`, payload: 'offline', retain: true, qos: 1 } });
      const { client } = connection;
      seen.client = client;
      client.on('message', (topic) => seen.wire.push(topic));
      await client.subscribeAsync(`${prefix}/undeclared`, { qos: 1 });
      return {
        mqtt: {
          connection,
          subscriptions: [
            { filters: [`${prefix}/config`], qos: 1 },
            { filters: [`${prefix}/+/in`], qos: 1 },
          ],
          onMessage(topic, payload) {
            const text = payload.toString('utf8');
            seen.routed.push({ topic, text });
            const id = topic.split('/')[1];
            if (topic.endsWith('/in')) void client.publishAsync(`${prefix}/${id}/out`, JSON.stringify({ text }), { qos: 1 });
          },
        },
        async stop() {
          // A sentinel on a topic it subscribes by hand, published after an input by the same
          // client: the broker delivers them in order, so once the sentinel is here the input
          // would have been too, had the input filter still been subscribed.
          await client.subscribeAsync(`${prefix}/sentinel`, { qos: 1 });
          const sentinel = new Promise<void>((resolve) => client.on('message', (topic) => topic === `${prefix}/sentinel` && resolve()));
          await inject(`${prefix}/late/in`);
          await inject(`${prefix}/sentinel`);
          await sentinel;
          seen.inputAfterUnsubscribe = seen.routed.some((m) => m.topic === `${prefix}/late/in`) ? 'routed' : 'not routed';
        },
      };
    },
  };
}

const brokers: Array<[string, (() => Promise<TestBroker>) | undefined, boolean]> = [
  ['the embedded aedes', undefined, true],
  [`mosquitto as MQTT_URL (${mosquitto.reason})`, mosquittoBroker, mosquitto.ok],
];

for (const [name, external, available] of brokers) {
  describe.skipIf(!available)(`a surface's MQTT edge, through core, on ${name}`, () => {
    it('subscribes in order, routes what matches, ignores the rest, reports the connection, unsubscribes before stop, ends it after', async () => {
      const broker = external ? await external() : undefined;
      const prefix = uniquePrefix();
      const config = loadPalabreConfig({ env: { PORT: '0', MQTT_EMBEDDED_PORT: '0', DATA_DIR: join(dir, prefix), SURFACES: 'all', ...(broker ? { MQTT_URL: broker.url } : {}) }, dotenvPath: null });
      const seen: Seen = { routed: [], wire: [] };
      let outside: Listener | undefined;
      const inject = async (topic: string) => outside!.publish(topic, JSON.stringify({ n: topic }));
      // Retained before the start: the config and an input, to check which arrives first.
      const url = broker?.url;
      if (url) {
        const early = await Listener.open(url, []);
        await early.publish(`${prefix}/early/in`, 'early input', { retain: true });
        await early.publish(`${prefix}/config`, 'config v1', { retain: true });
        await early.close();
      }
      const server = await startServer({ config, logger: silentLogger(), surfaces: [async () => relaySurface(prefix, seen, inject)] });
      try {
        outside = await Listener.open(server.ctx.mqtt.url, [`${prefix}/+/out`]);
        if (!url) {
          // The embedded broker starts with the server: its retained messages come after, so the
          // order check is on the external broker; here the config arrives on its own.
          await outside.publish(`${prefix}/config`, 'config v1', { retain: true });
        }
        await outside.publish(`${prefix}/undeclared`, 'nobody declared this');
        await outside.publish(`${prefix}/dev-1/in`, 'bonjour');
        expect(await outside.waitFor(`${prefix}/dev-1/out`)).toEqual([{ text: 'bonjour' }]);

        // The retained config was subscribed (and delivered) before the input filter.
        const topics = seen.routed.map((m) => m.topic);
        expect(topics[0]).toBe(`${prefix}/config`);
        if (url) expect(topics.slice(0, 2)).toEqual([`${prefix}/config`, `${prefix}/early/in`]);
        // On its connection, not routed: no surface declared it.
        expect(seen.wire).toContain(`${prefix}/undeclared`);
        expect(topics).not.toContain(`${prefix}/undeclared`);

        const health = (await (await fetch(`${server.ctx.publicUrl}/healthz`)).json()) as { mqtt: string; mqttConnections: unknown[] };
        expect(health.mqtt).toBe(url ? 'external' : 'embedded');
        expect(health.mqttConnections).toEqual([{ clientId: `relay-${prefix}`, surface: 'relay', connected: true, protocol: url ? '5' : '3.1.1' }]);
      } finally {
        expect(await server.shutdown('test')).toEqual({ forced: false });
        await outside?.close();
        if (url) {
          const clean = await Listener.open(url, []);
          for (const t of [`${prefix}/early/in`, `${prefix}/config`]) await clean.publish(t, '', { retain: true });
          await clean.close();
        }
        await broker?.close();
      }
      expect(seen.inputAfterUnsubscribe).toBe('not routed');
      expect(seen.client?.connected).toBe(false);
      expect(seen.client?.disconnected).toBe(true);
    });
  });
}
