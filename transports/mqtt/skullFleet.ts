import { hostname } from 'node:os';
import { createActor, type ActorRefFrom } from 'xstate';
import type { z } from 'zod';
import type { MqttClient } from 'mqtt';
import type { Config } from '../../core/config/index.js';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import type { Runtime } from '../../core/runtime.js';
import { isBreakerOpen } from '../../machines/breaker.js';
import { inFlight, type SkullActorRef, type SkullEvent } from '../../machines/skull.js';
import type { skullFleetMachine } from '../../machines/skullFleet.js';
import type { SkullWiring } from '../../actors/skull/skullWiring.js';
import type { IaConfig } from '../../actors/skull/types.js';
import { connectMqtt } from './client.js';
import { coalesceWritesOfThisTurn } from './coalesceWrites.js';
import { ackedPublisher } from './replyChannel.js';
import { capabilitiesOf } from './skull.js';
import { FleetDevices } from './skullFleetDevices.js';
import { cancelSchema, iaConfigFor, parsePayload, promptSystemSchema, textInputSchema } from './skullSchemas.js';
import {
  deviceTopic,
  FLEET_CONFIG_INPUTS,
  FLEET_WORK_INPUTS,
  fleetPrefix,
  fleetSubscriptions,
  inShard,
  parseFleetTopic,
  serviceHealthTopic,
  type Shard,
} from './skullFleetTopics.js';
import { RetainedConfigs } from './skullFleetConfigs.js';

/**
 * A Skull fleet's MQTT edge (SKULL_FLEET_PREFIX=<p>): one wildcard subscription per input topic,
 * every message validated (device id and payload, zod), then handed to the fleet supervisor chart
 * (machines/skullFleet.ts), which spawns the device's actor through the root on its first input,
 * stops it after SKULL_IDLE_STOP_S of silence and bounds how many live (SKULL_FLEET_MAX_ACTORS).
 *
 * Retained config (`<p>/<id>/skull/config/…`) arrives for every device when we subscribe; it is
 * kept in a bounded map (RetainedConfigs) and given to the device's actor when it is spawned —
 * a config does not spawn an actor. A device whose config fell out of the map re-subscribes to its
 * two config topics when it is spawned, and the broker sends them again (they are retained).
 *
 * Sharding (SKULL_FLEET_SHARD=i/N): every process subscribes to the same wildcards and ignores the
 * devices whose id does not hash to i (FNV-1a), so N processes answer each device exactly once on
 * any broker. Health of the process: `<p>/_service/<instance>/health` (retained, last will ok:false).
 */
export interface SkullFleetOptions {
  config: Config;
  logger: Logger;
  runtime: Runtime;
  /** The device chart's actors, settings and inputs, wired by the composition root (actors/skull/skullWiring.ts). */
  skull: SkullWiring;
  /** The fleet supervisor chart (machines/skullFleet.ts), handed in by the composition root. */
  supervisorMachine: typeof skullFleetMachine;
  mqttUrl: string;
  metrics?: Metrics;
  now?: () => number;
  /** 0 disables the periodic health. */
  healthIntervalMs?: number;
  reconnectBaseMs?: number;
  connectTimeoutMs?: number;
}

export interface FleetHealth {
  ts_ms: number;
  ok: boolean;
  instance: string;
  shard: string;
  live_actors: number;
  max_actors: number;
  busy_actors: number;
  breakers_open: number;
  spawned: number;
  idle_stopped: number;
  evicted: number;
  refused: number;
  rejected: number;
  rejected_by_reason: Record<string, number>;
  other_shard: number;
  configs_kept: number;
  replies_kept: number;
  replies_expired: number;
  publish_errors: number;
  provider: string;
  mqtt_protocol: 4 | 5;
}

export interface SkullFleet {
  prefix: string;
  instance: string;
  shard: Shard;
  client: MqttClient;
  protocolVersion: 4 | 5;
  supervisor: ActorRefFrom<typeof skullFleetMachine>;
  /** The live actor of a device, if any. */
  device(deviceId: string): SkullActorRef | undefined;
  health(): FleetHealth;
  publishHealth(): Promise<void>;
  stop(opts?: { deadlineAt?: number }): Promise<void>;
}

/** What the fleet edge counts for its health, beside the supervisor's figures. */
interface FleetLedger {
  rejected: Record<string, number>;
  /** Messages for devices of another shard (ignored). */
  otherShard: number;
}

type Reject = (topic: string, reason: string, detail: string, deviceId?: string) => void;
type Supervisor = ActorRefFrom<typeof skullFleetMachine>;

export async function startSkullFleet(opts: SkullFleetOptions): Promise<SkullFleet> {
  const { config, logger, runtime, skull } = opts;
  const prefix = fleetPrefix(config.SKULL_FLEET_PREFIX ?? '');
  if (!prefix) throw new Error('SKULL_FLEET_PREFIX is empty: set it to serve a fleet, or leave it unset for one device');
  const shard = config.SKULL_FLEET_SHARD;
  const instance = config.SKULL_FLEET_INSTANCE ?? `${hostname().replace(/[^A-Za-z0-9._-]/g, '-')}-${process.pid}`;
  const log = logger.child({ surface: 'skull', fleet: prefix, shard: `${shard.index}/${shard.count}` });
  const now = opts.now ?? Date.now;
  if (!skull.promptFromFile) log.warn({ path: config.SKULL_PROMPT_FILE }, 'prompt file missing or empty: using the built-in prompt');
  const healthTopic = serviceHealthTopic(prefix, instance);
  const ledger: FleetLedger = { rejected: {}, otherShard: 0 };
  const configs = new RetainedConfigs(config.SKULL_FLEET_CONFIG_MAX);

  const { client, protocolVersion } = await connectMqtt({
    url: opts.mqttUrl,
    clientId: `palabre-fleet-${instance}-${Math.random().toString(36).slice(2, 8)}`,
    logger: log,
    will: { topic: healthTopic, payload: JSON.stringify({ ok: false, reason: 'offline' }), retain: true, qos: 1 },
    ...(opts.reconnectBaseMs !== undefined ? { reconnectBaseMs: opts.reconnectBaseMs } : {}),
    ...(opts.connectTimeoutMs !== undefined ? { connectTimeoutMs: opts.connectTimeoutMs } : {}),
  });
  // Every reply in flight listens for 'close' (ackedPublisher): hundreds at once are expected here.
  client.setMaxListeners(0);
  const unregister = skull.activate();
  const reject: Reject = (topic, reason, detail, deviceId) => {
    ledger.rejected[reason] = (ledger.rejected[reason] ?? 0) + 1;
    opts.metrics?.inputRejected.inc({ surface: 'skull', reason });
    log.warn({ topic, reason, detail, ...(deviceId ? { deviceId } : {}) }, 'input rejected');
  };
  const devices = new FleetDevices({ prefix, client, runtime, config, skull, configs, publish: ackedPublisher(client), log, now, reject });
  const supervisor = startSupervisor(opts, prefix, devices, reject);
  routeFleetInputs(client, { prefix, shard, iaSchema: iaConfigFor(capabilitiesOf(skull.settings)), configs, devices, supervisor, ledger, reject });

  client.on('connect', () => {
    log.info({ live: devices.edges.size }, 'mqtt reconnected');
    for (const [deviceId, edge] of devices.edges) {
      void devices.publishCapabilities(deviceId);
      if (edge.replies.outbox.size > 0) void edge.replies.flush();
    }
  });
  // Config first: its retained messages are in the map before the first input of any device.
  await client.subscribeAsync(fleetSubscriptions(prefix, FLEET_CONFIG_INPUTS), { qos: 1 });
  await client.subscribeAsync(fleetSubscriptions(prefix, FLEET_WORK_INPUTS), { qos: 1 });

  const health = (): FleetHealth => fleetHealthOf({ supervisor, devices, ledger, configs, client, instance, shard, providerName: skull.providerName, protocolVersion, now });
  const publishHealth = async () => {
    if (!client.connected) return;
    await client.publishAsync(healthTopic, JSON.stringify(health()), { qos: 0, retain: true });
  };
  const interval = opts.healthIntervalMs ?? config.SKULL_HEALTH_INTERVAL_MS;
  const timer = interval > 0
    ? setInterval(() => {
        for (const edge of devices.edges.values()) edge.replies.outbox.sweep();
        void publishHealth().catch(() => undefined);
      }, interval)
    : undefined;
  timer?.unref();
  void publishHealth().catch(() => undefined);
  log.info({ instance, healthTopic, subscriptions: fleetSubscriptions(prefix), maxActors: config.SKULL_FLEET_MAX_ACTORS, idleStopS: config.SKULL_IDLE_STOP_S, provider: skull.providerName, protocolVersion }, 'skull fleet ready');

  let stopping: Promise<void> | undefined;
  return {
    prefix,
    instance,
    shard,
    client,
    protocolVersion,
    supervisor,
    device: (deviceId) => devices.device(deviceId),
    health,
    publishHealth,
    stop(stopOpts) {
      stopping ??= (async () => {
        if (stopOpts?.deadlineAt !== undefined) await drainFleet({ client, prefix, devices, log }, stopOpts.deadlineAt);
        if (timer) clearInterval(timer);
        supervisor.send({ type: 'fleet.stopAll' });
        supervisor.stop();
        unregister();
        if (client.connected) {
          await client.publishAsync(healthTopic, JSON.stringify({ ok: false, reason: 'stopped' }), { qos: 1, retain: true }).catch(() => undefined);
        }
        await client.endAsync();
      })();
      return stopping;
    },
  };
}

/** The supervisor chart, provided with this edge's actions: they start, feed and stop the device actors. */
function startSupervisor(opts: SkullFleetOptions, prefix: string, devices: FleetDevices, reject: Reject): Supervisor {
  const { config, runtime } = opts;
  const supervisorLogic = opts.supervisorMachine.provide({
    actions: {
      spawnDevice: (_, p: { deviceId: string }) => devices.spawn(p.deviceId),
      stopDevice: (_, p: { deviceId: string; why: string }) => devices.stop(p.deviceId, p.why),
      forward: (_, p: { deviceId: string; event: SkullEvent }) => devices.forward(p.deviceId, p.event),
      refuse: (_, p: { deviceId: string; live: number }) => {
        reject(deviceTopic(prefix, p.deviceId, '…'), 'fleet_full', `${p.live} live device actors, all busy (SKULL_FLEET_MAX_ACTORS=${config.SKULL_FLEET_MAX_ACTORS}); input refused`, p.deviceId);
      },
    },
    guards: {
      deviceBusy: (_, p: { deviceId: string }) => devices.busy(p.deviceId),
    },
  });
  // Its own actor system (same clock), not a root conversation: XState's scheduler finds a
  // cancelled delayed event by walking every delayed event of its system, and a turn cancels
  // several (attempt, backoff and publish timeouts). With one idle timer per device in the root's
  // system, every turn of every device would walk 10,000 timers (measured: bench/skull-fleet.ts).
  const supervisor = createActor(supervisorLogic, {
    input: { maxActors: config.SKULL_FLEET_MAX_ACTORS, idleStopMs: Math.round(config.SKULL_IDLE_STOP_S * 1000) },
    ...(runtime.clock ? { clock: runtime.clock } : {}),
  });
  supervisor.start();
  return supervisor;
}

interface FleetInputs {
  prefix: string;
  shard: Shard;
  iaSchema: z.ZodType<IaConfig>;
  configs: RetainedConfigs;
  devices: FleetDevices;
  supervisor: Supervisor;
  ledger: FleetLedger;
  reject: Reject;
}

/** Every message: device id and payload validated, then to the supervisor (work) or the config map. */
function routeFleetInputs(client: MqttClient, f: FleetInputs): void {
  const { prefix, devices, supervisor, reject } = f;
  client.on('message', (topic, payload) => {
    const t = parseFleetTopic(prefix, topic);
    if (!t.ok) {
      if (t.reason === 'invalid_device_id') reject(topic, t.reason, t.detail);
      return undefined;
    }
    const { deviceId } = t;
    if (!inShard(deviceId, f.shard)) {
      f.ledger.otherShard++;
      return undefined;
    }
    switch (t.input) {
      case 'skull/config/ia':
        return onConfig(f, topic, deviceId, 'ia', payload);
      case 'skull/config/prompt_system':
        return onConfig(f, topic, deviceId, 'prompt', payload);
      case 'ai/cancel': {
        const r = parsePayload(payload, cancelSchema, {});
        if (!r.ok) return reject(topic, r.reason, r.detail, deviceId);
        // A cancel for a device with no live actor has nothing to cancel: it spawns nothing.
        if (!devices.edges.has(deviceId)) return undefined;
        return supervisor.send({ type: 'device.input', deviceId, event: { type: 'ai.cancel' } });
      }
      case 'asr/text':
      case 'ai/request': {
        const r = parsePayload(payload, textInputSchema);
        if (!r.ok) return reject(topic, r.reason, r.detail, deviceId);
        const event: SkullEvent = t.input === 'asr/text' ? { type: 'asr.text', text: r.value.text } : { type: 'ai.request', text: r.value.text };
        coalesceWritesOfThisTurn(client);
        return supervisor.send({ type: 'device.input', deviceId, event });
      }
    }
  });
}

/** A retained config: kept in the map, and given to the device's actor if it is live. */
function onConfig(f: FleetInputs, topic: string, deviceId: string, kind: 'ia' | 'prompt', payload: Buffer): void {
  let event: SkullEvent;
  if (kind === 'ia') {
    let value: IaConfig | null = null;
    if (payload.length > 0) {
      const r = parsePayload(payload, f.iaSchema);
      if (!r.ok) return f.reject(topic, r.reason, `${r.detail}; keeping the last good config`, deviceId);
      value = r.value;
    }
    f.configs.set(deviceId, { ia: value });
    event = { type: 'config.ia', config: value };
  } else {
    let text: string | null = null;
    if (payload.length > 0) {
      const r = parsePayload(payload, promptSystemSchema);
      if (!r.ok) return f.reject(topic, r.reason, `${r.detail}; keeping the last good prompt`, deviceId);
      text = r.value.text;
    }
    f.configs.set(deviceId, { prompt: text });
    event = { type: 'config.prompt', text };
  }
  // A live device takes it for its next turn; a config alone never spawns an actor.
  f.devices.device(deviceId)?.send(event);
}

/** The fleet's health: the supervisor's counts, every live device's figures, the edge's own. */
function fleetHealthOf(h: { supervisor: Supervisor; devices: FleetDevices; ledger: FleetLedger; configs: RetainedConfigs; client: MqttClient; instance: string; shard: Shard; providerName: string; protocolVersion: 4 | 5; now: () => number }): FleetHealth {
  const { devices } = h;
  const ctx = h.supervisor.getSnapshot().context;
  let busy = 0;
  let open = 0;
  let kept = 0;
  let expired = devices.repliesExpiredGone;
  let publishErrors = devices.publishErrorsGone;
  for (const [deviceId, edge] of devices.edges) {
    const snap = devices.device(deviceId)?.getSnapshot();
    if (snap && inFlight(snap) > 0) busy++;
    if (snap && isBreakerOpen(snap.context.breaker.getSnapshot())) open++;
    kept += edge.replies.outbox.size;
    expired += edge.replies.outbox.expired;
    publishErrors += edge.replies.publishErrors + (snap?.context.stats.publishErrors ?? 0);
  }
  return {
    ts_ms: h.now(),
    ok: h.client.connected && h.supervisor.getSnapshot().status === 'active',
    instance: h.instance,
    shard: `${h.shard.index}/${h.shard.count}`,
    live_actors: ctx.devices.size,
    max_actors: ctx.maxActors,
    busy_actors: busy,
    breakers_open: open,
    spawned: ctx.stats.spawned,
    idle_stopped: ctx.stats.idleStopped,
    evicted: ctx.stats.evicted,
    refused: ctx.stats.refused,
    rejected: Object.values(h.ledger.rejected).reduce((a, b) => a + b, 0),
    rejected_by_reason: { ...h.ledger.rejected },
    other_shard: h.ledger.otherShard,
    configs_kept: h.configs.size,
    replies_kept: kept,
    replies_expired: expired,
    publish_errors: publishErrors,
    provider: h.providerName,
    mqtt_protocol: h.protocolVersion,
  };
}

/** Graceful stop: no new input, the turns in flight finish while time allows, kept replies go out. */
async function drainFleet(d: { client: MqttClient; prefix: string; devices: FleetDevices; log: Logger }, deadlineAt: number): Promise<void> {
  const { client, devices, log } = d;
  await client.unsubscribeAsync(fleetSubscriptions(d.prefix)).catch((err: Error) => log.warn({ err: err.message }, 'inputs not unsubscribed (broker away)'));
  while (devices.busyIds().length > 0 && Date.now() < deadlineAt) await new Promise((r) => setTimeout(r, 20));
  if (client.connected) {
    const flushes = [...devices.edges.values()].filter((e) => e.replies.outbox.size > 0).map((e) => e.replies.flush());
    await Promise.race([Promise.all(flushes), new Promise((r) => setTimeout(r, Math.max(0, deadlineAt - Date.now())).unref())]);
  }
  const cut = devices.busyIds();
  if (cut.length > 0) log.warn({ devices: cut.slice(0, 20), count: cut.length }, 'skull fleet stop: turns cut at the shutdown deadline');
  log.info({ live: devices.edges.size, cut: cut.length }, 'skull fleet drained');
}
