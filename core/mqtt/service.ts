import type { Logger } from '../log.js';
import { connectMqtt, type MqttConnection, type MqttWill } from './connect.js';
import { TopicFilter } from './topicFilter.js';

/**
 * The process's MQTT service (`ctx.mqtt`), one per process on its broker (the embedded aedes or
 * MQTT_URL): it opens each surface's connection (protocol 5 with the 3.1.1 fallback, reconnect
 * backoff, logs with the URL redacted: core/mqtt/connect.ts), subscribes what a surface declares
 * (`RunningSurface.mqtt`), routes every message to the surface whose filter matches it, reports
 * each connection in /healthz, unsubscribes a surface at the start of its drain and ends every
 * connection once the surfaces have drained.
 */

/** One SUBSCRIBE: its filters, at one QoS. */
interface MqttSubscription {
  filters: readonly string[];
  qos: 0 | 1 | 2;
}

/** A surface's MQTT edge as it declares it (`RunningSurface.mqtt`); core subscribes and routes. */
export interface MqttEdge {
  /** The connection the filters are subscribed on: the surface's own, from `ctx.mqtt.connect`. */
  connection: MqttConnection;
  /**
   * Subscribed in this order, each SUBSCRIBE acknowledged before the next: retained configs before
   * work, so that they are in place before the first input arrives.
   */
  subscriptions: readonly MqttSubscription[];
  /** A message on a topic one of its filters matches; a message no filter matches reaches nobody. */
  onMessage(topic: string, payload: Buffer): void;
  /** Called once every subscription is acknowledged, before the surface counts as started. */
  subscribed?(): Promise<void> | void;
}

interface MqttConnectOptions {
  /** Unique per connection: two connections with one client id take over each other's session. */
  clientId: string;
  /** Published by the broker if this connection is lost without a clean end. */
  will?: MqttWill;
  /** The surface's logger, for this connection's lines (connected, lost, protocol fallback). */
  logger?: Logger;
}

/** What a surface gets as `ctx.mqtt`. */
export interface MqttService {
  /** The broker's URL; print it through `redactUrl`. */
  readonly url: string;
  /** Opens a connection of its own (its client id, its last will); first connection per options. */
  connect(opts: MqttConnectOptions): Promise<MqttConnection>;
}

/** One connection as /healthz reports it. */
export interface MqttConnectionHealth {
  clientId: string;
  /** The surface whose edge is mounted on it. */
  surface?: string;
  connected: boolean;
  protocol: '5' | '3.1.1';
}

/** What core does with the service besides handing it to the surfaces. */
export interface ProcessMqtt extends MqttService {
  /** Subscribes a surface's declared filters, in order, and routes their messages to it. */
  mount(surface: string, edge: MqttEdge): Promise<void>;
  /**
   * The start of a surface's drain: its filters are unsubscribed (it takes no new input); by
   * `deadlineAt` at most, and not at all while the broker is away. Messages the broker had already
   * sent still reach it: they were acknowledged and are answered by the drain.
   */
  unsubscribe(surface: string, deadlineAt: number): Promise<void>;
  health(): MqttConnectionHealth[];
  /** Ends every connection (a clean DISCONNECT: no last will); `force` drops them at once. */
  close(opts?: { force?: boolean }): Promise<void>;
}

export interface MqttServiceOptions {
  url: string;
  logger: Logger;
  /** Gives up a first connection after this long (ms); default: keep trying, as a device should. */
  connectTimeoutMs?: number;
  /** First reconnect delay, ms (default 1000, doubling to 30 s). */
  reconnectBaseMs?: number;
}

/** A surface's filters on one connection, split once. */
interface Route {
  surface: string;
  edge: MqttEdge;
  filters: readonly TopicFilter[];
  exact: ReadonlySet<string>;
  wildcards: readonly TopicFilter[];
}

interface Held {
  connection: MqttConnection;
  clientId: string;
  log: Logger;
  routes: Route[];
}

export function createMqttService(opts: MqttServiceOptions): ProcessMqtt {
  const held: Held[] = [];
  const mounted = new Map<string, { held: Held; route: Route }>();
  let closing: Promise<void> | undefined;

  function deliver(h: Held, topic: string, payload: Buffer): void {
    let levels: string[] | undefined;
    for (const route of h.routes) {
      if (!route.exact.has(topic) && !route.wildcards.some((f) => f.matches(topic, (levels ??= topic.split('/'))))) continue;
      try {
        route.edge.onMessage(topic, payload);
      } catch (err) {
        h.log.error({ err, topic, surface: route.surface }, 'mqtt message handler failed');
      }
      return;
    }
    h.log.debug({ topic }, 'mqtt message on a topic no surface declared: ignored');
  }

  function close(o?: { force?: boolean }): Promise<void> {
    const end = (force: boolean) => Promise.all(held.map((h) => h.connection.client.endAsync(force).catch(() => undefined))).then(() => undefined);
    // A forced close after a clean one drops what the clean one still waits for (unacked publishes).
    if (o?.force) closing = end(true);
    closing ??= end(false);
    return closing;
  }

  return {
    url: opts.url,
    async connect(c) {
      if (closing) throw new Error('the MQTT service is closed');
      const log = c.logger ?? opts.logger;
      const connection = await connectMqtt({
        url: opts.url,
        clientId: c.clientId,
        logger: log,
        ...(c.will ? { will: c.will } : {}),
        ...(opts.reconnectBaseMs !== undefined ? { reconnectBaseMs: opts.reconnectBaseMs } : {}),
        ...(opts.connectTimeoutMs !== undefined ? { connectTimeoutMs: opts.connectTimeoutMs } : {}),
      });
      const h: Held = { connection, clientId: c.clientId, log, routes: [] };
      held.push(h);
      // Closed while it connected (a start that failed elsewhere): it ends with the others.
      if (closing) {
        await connection.client.endAsync(true).catch(() => undefined);
        throw new Error('the MQTT service is closed');
      }
      connection.client.on('message', (topic, payload) => deliver(h, topic, payload));
      return connection;
    },

    async mount(surface, edge) {
      if (mounted.has(surface)) throw new Error(`the ${surface} surface already declared its MQTT edge`);
      const h = held.find((x) => x.connection.client === edge.connection.client);
      if (!h) throw new Error(`the MQTT connection of ${surface} was not opened by ctx.mqtt.connect`);
      const filters = edge.subscriptions.flatMap((s) => s.filters.map((f) => new TopicFilter(f)));
      const route: Route = {
        surface,
        edge,
        filters,
        exact: new Set(filters.filter((f) => f.exact).map((f) => f.filter)),
        wildcards: filters.filter((f) => !f.exact),
      };
      h.routes.push(route);
      mounted.set(surface, { held: h, route });
      const { client } = edge.connection;
      for (const sub of edge.subscriptions) {
        if (sub.filters.length === 0) continue;
        const granted = await client.subscribeAsync([...sub.filters], { qos: sub.qos });
        // 0x80 and above: refused (an ACL); the surface still starts, the line says what it misses.
        const refused = granted.filter((g) => g.qos >= 0x80).map((g) => g.topic);
        if (refused.length > 0) h.log.warn({ surface, refused }, 'mqtt subscription refused by the broker');
      }
      h.log.debug({ surface, filters: filters.map((f) => f.filter) }, 'mqtt subscribed');
      await edge.subscribed?.();
    },

    async unsubscribe(surface, deadlineAt) {
      const m = mounted.get(surface);
      if (!m || m.route.filters.length === 0) return;
      const { client } = m.held.connection;
      const filters = m.route.filters.map((f) => f.filter);
      const notTaken = (why: string) => m.held.log.warn({ surface, why }, 'inputs not unsubscribed (broker away)');
      if (!client.connected) {
        // mqtt.js sends it once reconnected, and no longer subscribes these again then.
        client.unsubscribe(filters, () => undefined);
        notTaken('not connected');
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, deadlineAt - Date.now()))));
      try {
        if ((await Promise.race([client.unsubscribeAsync(filters), late])) === 'late') notTaken('no UNSUBACK by the deadline');
      } catch (err) {
        notTaken((err as Error).message);
      } finally {
        clearTimeout(timer);
      }
    },

    health: () =>
      held.map((h) => {
        const surface = h.routes[0]?.surface;
        return { clientId: h.clientId, ...(surface ? { surface } : {}), connected: h.connection.client.connected, protocol: h.connection.protocolVersion === 5 ? '5' : '3.1.1' };
      }),

    close,
  };
}
