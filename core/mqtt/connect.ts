import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { redactUrl, type Logger } from '../log.js';

/** The message a broker publishes for a connection lost without a clean DISCONNECT. */
export interface MqttWill {
  topic: string;
  payload: string;
  retain: boolean;
  qos: 0 | 1;
}

/**
 * An MQTT connection that negotiates the protocol: MQTT 5 where the broker accepts it (mosquitto),
 * 3.1.1 otherwise (the embedded aedes 1.x refuses 5 with "Unacceptable protocol version").
 * After the first connection it reconnects by itself with exponential backoff (1 s doubling to
 * 30 s, reset on success), keeping the negotiated version.
 */
interface ConnectOptions {
  url: string;
  clientId: string;
  logger: Logger;
  will?: MqttWill;
  /** First reconnect delay, ms. */
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  /** Gives up the first connection after this long (ms); default: keep trying. */
  connectTimeoutMs?: number;
}

export interface MqttConnection {
  client: MqttClient;
  protocolVersion: 4 | 5;
}

function isVersionRefused(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e?.message === 'string' ? e.message : '';
  return e?.code === 1 || e?.code === 132 || /protocol version/i.test(message);
}

function attempt(opts: ConnectOptions, version: 4 | 5): Promise<MqttClient> {
  const options: IClientOptions = {
    clientId: opts.clientId,
    protocolVersion: version,
    reconnectPeriod: 0,
    connectTimeout: 5000,
    clean: true,
    // A clean session loses its subscriptions with the connection: mqtt.js subscribes again to
    // what is subscribed after every reconnection (`resubscribe`, its default), in the order it was
    // first subscribed; nothing here or in a surface does it by hand.
    resubscribe: true,
    keepalive: 10,
    // mqtt-packet otherwise builds, on the first packet written, a cache of 65,536 two-byte
    // Buffers (every message id): ≈ 6 MB of heap held for good, in `palabre skull` on a Pi as in
    // `palabre serve` (its embedded aedes shares the module). Without it each number is written
    // from a fresh 2-byte Buffer: the same bytes on the wire, and idle RSS stays low on a Pi.
    writeCache: false,
    // mqtt.js calls its `debug` logger a dozen times per packet, and `debug` checks its namespaces
    // on every call even when disabled: ≈ 1 % of `palabre skull`'s CPU, on the reply path.
    // A no-op logger, unless DEBUG asks for mqtt.js's own lines.
    ...(/mqttjs/.test(process.env.DEBUG ?? '') ? {} : { log: () => {} }),
    ...(opts.will ? { will: { ...opts.will } } : {}),
  };
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(opts.url, options);
    // Small QoS 1 packets must not wait for Nagle's algorithm (~40 ms per ack round trip).
    const noDelay = () => (client.stream as { setNoDelay?: (v: boolean) => void } | undefined)?.setNoDelay?.(true);
    noDelay();
    client.on('connect', noDelay);
    const onConnect = () => {
      client.off('error', onError);
      client.off('close', onClose);
      resolve(client);
    };
    const onError = (err: Error) => {
      client.off('connect', onConnect);
      client.off('close', onClose);
      client.end(true);
      reject(err);
    };
    const onClose = () => onError(new Error('connection closed before CONNACK'));
    client.once('connect', onConnect);
    client.once('error', onError);
    client.once('close', onClose);
  });
}

export async function connectMqtt(opts: ConnectOptions): Promise<MqttConnection> {
  const base = opts.reconnectBaseMs ?? 1000;
  const max = opts.reconnectMaxMs ?? 30_000;
  const deadline = opts.connectTimeoutMs !== undefined ? Date.now() + opts.connectTimeoutMs : Infinity;
  let delay = base;
  let version: 4 | 5 = 5;
  for (;;) {
    try {
      const client = await attempt(opts, version);
      keepReconnecting(client, opts.logger, base, max);
      opts.logger.info({ protocolVersion: version, url: redactUrl(opts.url) }, 'mqtt connected');
      return { client, protocolVersion: version };
    } catch (err) {
      if (version === 5 && isVersionRefused(err)) {
        opts.logger.info('broker refused MQTT 5, using 3.1.1');
        version = 4;
        continue;
      }
      if (Date.now() + delay > deadline) throw err;
      opts.logger.warn({ err: (err as Error).message, retryInMs: delay }, 'mqtt connection failed');
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(max, delay * 2);
    }
  }
}

/** mqtt.js reads `options.reconnectPeriod` each time it schedules a reconnect: grow it on failure. */
function keepReconnecting(client: MqttClient, logger: Logger, base: number, max: number): void {
  client.options.reconnectPeriod = base;
  client.on('connect', () => {
    client.options.reconnectPeriod = base;
  });
  client.on('close', () => {
    if (client.disconnecting) return;
    logger.warn({ retryInMs: client.options.reconnectPeriod }, 'mqtt connection lost');
  });
  client.on('reconnect', () => {
    client.options.reconnectPeriod = Math.min(max, (client.options.reconnectPeriod ?? base) * 2);
  });
  client.on('error', (err) => logger.warn({ err: err.message }, 'mqtt error'));
}
