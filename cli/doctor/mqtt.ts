import { randomBytes } from 'node:crypto';
import mqtt from 'mqtt';
import { redactUrl } from '../../core/log.js';
import type { Check } from './check.js';

type MqttProbe = { ok: true; version: 5 | 4 } | { ok: false; error: string };

/** A broker that only speaks 3.1.1 answers a v5 CONNECT with "unacceptable protocol version". */
function isVersionRefused(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return e?.code === 1 || e?.code === 132 || (typeof e?.message === 'string' && /protocol version/i.test(e.message));
}

function connectOnce(url: string, version: 5 | 4, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, { protocolVersion: version, reconnectPeriod: 0, connectTimeout: timeoutMs, clean: true, clientId: `palabre-doctor-${randomBytes(4).toString('hex')}` });
    const timer = setTimeout(() => fail(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })), timeoutMs + 500);
    const fail = (err: Error) => {
      clearTimeout(timer);
      client.removeAllListeners();
      client.on('error', () => undefined);
      client.end(true);
      reject(err);
    };
    client.once('connect', () => {
      clearTimeout(timer);
      client.removeAllListeners('close');
      client.removeAllListeners('error');
      client.on('error', () => undefined);
      client.end(false, {}, () => resolve());
    });
    client.once('error', fail);
    client.once('close', () => fail(new Error('connection closed before CONNACK')));
  });
}

/** Connects with MQTT 5, then 3.1.1 when the broker refuses 5; reports the version it speaks. */
async function probeMqtt(url: string, timeoutMs = 3000): Promise<MqttProbe> {
  try {
    await connectOnce(url, 5, timeoutMs);
    return { ok: true, version: 5 };
  } catch (err) {
    // "Closed before CONNACK" is how some 3.1.1 brokers refuse a v5 CONNECT too.
    if (!isVersionRefused(err) && !/closed before CONNACK/.test((err as Error).message)) return { ok: false, error: describe(err) };
  }
  try {
    await connectOnce(url, 4, timeoutMs);
    return { ok: true, version: 4 };
  } catch (err) {
    return { ok: false, error: describe(err) };
  }
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code && typeof e.code === 'string' ? `${e.code}: ${e.message}` : String(e?.message ?? err);
}

const versionName = (v: 5 | 4): string => (v === 5 ? 'MQTT 5' : 'MQTT 3.1.1');

export async function checkExternalBroker(url: string): Promise<Check> {
  const base = { id: 'mqtt.broker', group: 'network' as const, label: 'MQTT broker' };
  const r = await probeMqtt(url);
  if (r.ok) return { ...base, status: 'ok', detail: `${redactUrl(url)} answers, ${versionName(r.version)}` };
  return {
    ...base, status: 'fail', detail: `${redactUrl(url)} unreachable (${r.error})`,
    fix: 'start that broker (e.g. systemctl start mosquitto), correct MQTT_URL, or unset MQTT_URL to use the embedded broker',
  };
}

/**
 * The embedded broker, started for real on a spare port of MQTT_EMBEDDED_HOST and connected to
 * (its own port is the port check's business): proves aedes loads and answers on this machine.
 */
export async function checkEmbeddedBroker(host: string): Promise<Check> {
  const base = { id: 'mqtt.broker', group: 'network' as const, label: 'MQTT broker' };
  const [{ startEmbeddedBroker }, { silentLogger }] = await Promise.all([import('../../core/broker.js'), import('../../core/log.js')]);
  let broker: Awaited<ReturnType<typeof startEmbeddedBroker>> | undefined;
  try {
    broker = await startEmbeddedBroker({ host, port: 0, logger: silentLogger() });
    const r = await probeMqtt(broker.url);
    if (r.ok) return { ...base, status: 'ok', detail: `embedded (aedes) starts and answers on ${host}, ${versionName(r.version)}` };
    return { ...base, status: 'fail', detail: `embedded broker started but did not answer (${r.error})`, fix: 'set MQTT_URL to an external broker (e.g. mosquitto)' };
  } catch (err) {
    return { ...base, status: 'fail', detail: `embedded broker cannot start on ${host} (${describe(err)})`, fix: 'set MQTT_EMBEDDED_HOST to an address of this machine, or MQTT_URL to an external broker' };
  } finally {
    await broker?.close().catch(() => undefined);
  }
}
