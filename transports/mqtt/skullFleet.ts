import { hostname } from 'node:os';
import { createActor, fromPromise, type ActorRefFrom } from 'xstate';
import type { MqttClient } from 'mqtt';
import type { Config } from '../../core/config/index.js';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import type { Runtime } from '../../core/runtime.js';
import { isBreakerOpen } from '../../machines/breaker.js';
import { inFlight, type SkullActorRef, type SkullEvent } from '../../machines/skull.js';
import type { skullFleetMachine } from '../../machines/skullFleet.js';
import type { SkullWiring } from '../../actors/skull/skullWiring.js';
import type { IaConfig, Outgoing } from '../../actors/skull/types.js';
import { connectMqtt } from './client.js';
import type { OutboxMessage } from './outbox.js';
import { ackedPublisher, ReplyChannel } from './replyChannel.js';
import { capabilitiesOf } from './skull.js';
import { logBreakerChanges } from './skullHealth.js';
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

/** What the transport keeps per live device besides its actor. */
interface DeviceEdge {
  systemId: string;
  replies: ReplyChannel;
  breakerSub: { unsubscribe(): void };
  resubscribed: boolean;
  /**
   * Inputs held while the device's retained config is read again (its entry fell out of the map):
   * they reach the actor once the config came back, or shortly after the broker's SUBACK.
   */
  held: SkullEvent[] | undefined;
}

/** After the SUBACK of a config re-read, how long retained messages may still be on their way. */
const CONFIG_REREAD_GRACE_MS = 100;

export async function startSkullFleet(opts: SkullFleetOptions): Promise<SkullFleet> {
  const { config, logger, runtime, skull } = opts;
  const prefix = fleetPrefix(config.SKULL_FLEET_PREFIX ?? '');
  if (!prefix) throw new Error('SKULL_FLEET_PREFIX is empty: set it to serve a fleet, or leave it unset for one device');
  const shard = config.SKULL_FLEET_SHARD;
  const instance = config.SKULL_FLEET_INSTANCE ?? `${hostname().replace(/[^A-Za-z0-9._-]/g, '-')}-${process.pid}`;
  const log = logger.child({ surface: 'skull', fleet: prefix, shard: `${shard.index}/${shard.count}` });
  const now = opts.now ?? Date.now;
  const settings = skull.settings;
  if (!skull.promptFromFile) log.warn({ path: config.SKULL_PROMPT_FILE }, 'prompt file missing or empty: using the built-in prompt');
  const capabilities = JSON.stringify(capabilitiesOf(settings));
  const iaSchema = iaConfigFor(capabilitiesOf(settings));
  const healthTopic = serviceHealthTopic(prefix, instance);

  const rejected: Record<string, number> = {};
  let otherShard = 0;
  let repliesExpiredGone = 0;
  let publishErrorsGone = 0;
  const configs = new RetainedConfigs(config.SKULL_FLEET_CONFIG_MAX);
  const edges = new Map<string, DeviceEdge>();

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
  const publish = ackedPublisher(client);

  const reject = (topic: string, reason: string, detail: string, deviceId?: string) => {
    rejected[reason] = (rejected[reason] ?? 0) + 1;
    opts.metrics?.inputRejected.inc({ surface: 'skull', reason });
    log.warn({ topic, reason, detail, ...(deviceId ? { deviceId } : {}) }, 'input rejected');
  };

  // One provided device chart for the whole fleet: publishReply routes by the reply's deviceId.
  const publishReply = fromPromise<void, Outgoing>(async ({ input }) => {
    const deviceId = input.deviceId!;
    const messages: OutboxMessage[] = [{ topic: deviceTopic(prefix, deviceId, 'ai/response'), payload: JSON.stringify(input.response) }];
    if (input.usage) messages.push({ topic: deviceTopic(prefix, deviceId, 'ai/usage'), payload: JSON.stringify(input.usage) });
    const edge = edges.get(deviceId);
    if (edge) await edge.replies.send(messages);
    else for (const m of messages) await publish(m);
  });
  const deviceMachine = skull.machine(publishReply, log, { tagDevice: true });

  const systemIdOf = (deviceId: string) => `skull:${prefix}/${deviceId}`;
  const device = (deviceId: string) => runtime.get(systemIdOf(deviceId)) as SkullActorRef | undefined;
  const publishCapabilities = (deviceId: string) =>
    client.publishAsync(deviceTopic(prefix, deviceId, 'ai/capabilities'), capabilities, { qos: 1, retain: true }).catch((err: Error) => {
      log.warn({ deviceId, err: err.message }, 'ai/capabilities not published');
    });

  const spawnDevice = (deviceId: string) => {
    const systemId = systemIdOf(deviceId);
    const input = skull.input(deviceId);
    const actor = runtime.start('skull', systemId, deviceMachine, { now, ...input }) as SkullActorRef;
    const replies = new ReplyChannel({
      publish,
      connected: () => client.connected,
      max: config.SKULL_OUTBOX_MAX,
      ttlMs: config.SKULL_REPLY_TTL_MS,
      now,
      log: log.child({ deviceId }),
    });
    const breakerSub = logBreakerChanges(actor, settings, log.child({ deviceId }));
    const edge: DeviceEdge = { systemId, replies, breakerSub, resubscribed: false, held: undefined };
    edges.set(deviceId, edge);
    // Its retained config first, so its first turn already uses it.
    const kept = configs.get(deviceId);
    if (kept?.ia !== undefined) actor.send({ type: 'config.ia', config: kept.ia });
    if (kept?.prompt !== undefined) actor.send({ type: 'config.prompt', text: kept.prompt });
    if (!kept && configs.evictedAny) rereadConfig(deviceId, edge);
    void publishCapabilities(deviceId);
    log.debug({ deviceId, systemId }, 'device actor spawned');
  };

  /**
   * Its config may have fallen out of the bounded map: the broker sends retained messages again on
   * subscribe. The device's inputs wait for it (or for SUBACK + a short grace when it has none).
   */
  const rereadConfig = (deviceId: string, edge: DeviceEdge) => {
    edge.resubscribed = true;
    edge.held = [];
    const release = () => {
      const held = edge.held ?? [];
      edge.held = undefined;
      const actor = device(deviceId);
      for (const e of held) actor?.send(e);
    };
    client
      .subscribeAsync(FLEET_CONFIG_INPUTS.map((t) => deviceTopic(prefix, deviceId, t)), { qos: 1 })
      .then(() => new Promise((r) => setTimeout(r, CONFIG_REREAD_GRACE_MS)))
      .catch((err: Error) => log.warn({ deviceId, err: err.message }, 'config re-subscribe failed: environment defaults for this turn'))
      .finally(release);
    log.info({ deviceId }, 'retained config not in the map: read again from the broker');
  };

  const forward = (deviceId: string, event: SkullEvent) => {
    const held = edges.get(deviceId)?.held;
    if (held) {
      // A few inputs during a ~100 ms re-read; beyond the device's own bound they are refused.
      if (held.length < settings.maxInFlight + 1) held.push(event);
      else reject(deviceTopic(prefix, deviceId, '…'), 'held_overflow', 'too many inputs while its retained config is read again', deviceId);
    } else device(deviceId)?.send(event);
  };

  const stopDevice = (deviceId: string, why: string) => {
    const edge = edges.get(deviceId);
    if (edge) {
      edge.breakerSub.unsubscribe();
      repliesExpiredGone += edge.replies.outbox.expired + edge.replies.outbox.drop();
      publishErrorsGone += edge.replies.publishErrors;
      if (edge.resubscribed) void client.unsubscribeAsync(FLEET_CONFIG_INPUTS.map((t) => deviceTopic(prefix, deviceId, t))).catch(() => undefined);
      edges.delete(deviceId);
    }
    runtime.stop(systemIdOf(deviceId));
    log.debug({ deviceId, why }, 'device actor stopped');
  };

  const deviceBusy = (deviceId: string) => {
    const actor = device(deviceId);
    const edge = edges.get(deviceId);
    return (actor !== undefined && inFlight(actor.getSnapshot()) > 0) || (edge !== undefined && (edge.held !== undefined || edge.replies.outbox.size > 0 || edge.replies.isFlushing));
  };

  // The supervisor's actions are this edge's: they start, feed and stop the device actors it holds.
  const supervisorLogic = opts.supervisorMachine.provide({
    actions: {
      spawnDevice: (_, p: { deviceId: string }) => spawnDevice(p.deviceId),
      stopDevice: (_, p: { deviceId: string; why: string }) => stopDevice(p.deviceId, p.why),
      forward: (_, p: { deviceId: string; event: SkullEvent }) => forward(p.deviceId, p.event),
      refuse: (_, p: { deviceId: string; live: number }) => {
        reject(deviceTopic(prefix, p.deviceId, '…'), 'fleet_full', `${p.live} live device actors, all busy (SKULL_FLEET_MAX_ACTORS=${config.SKULL_FLEET_MAX_ACTORS}); input refused`, p.deviceId);
      },
    },
    guards: {
      deviceBusy: (_, p: { deviceId: string }) => deviceBusy(p.deviceId),
    },
  });
  // Its own actor system (same clock), not a root conversation: XState's scheduler cancels a
  // stopping actor's delayed events by walking every delayed event of its system, and a turn stops
  // two children (llmCall, publishReply). With one idle timer per device in the root's system,
  // every turn of every device would walk 10,000 timers (measured: bench/skull-fleet.ts).
  const supervisor = createActor(supervisorLogic, {
    input: { maxActors: config.SKULL_FLEET_MAX_ACTORS, idleStopMs: Math.round(config.SKULL_IDLE_STOP_S * 1000) },
    ...(runtime.clock ? { clock: runtime.clock } : {}),
  });
  supervisor.start();

  const onConfig = (topic: string, deviceId: string, kind: 'ia' | 'prompt', payload: Buffer) => {
    let event: SkullEvent;
    if (kind === 'ia') {
      let value: IaConfig | null = null;
      if (payload.length > 0) {
        const r = parsePayload(payload, iaSchema);
        if (!r.ok) return reject(topic, r.reason, `${r.detail}; keeping the last good config`, deviceId);
        value = r.value;
      }
      configs.set(deviceId, { ia: value });
      event = { type: 'config.ia', config: value };
    } else {
      let text: string | null = null;
      if (payload.length > 0) {
        const r = parsePayload(payload, promptSystemSchema);
        if (!r.ok) return reject(topic, r.reason, `${r.detail}; keeping the last good prompt`, deviceId);
        text = r.value.text;
      }
      configs.set(deviceId, { prompt: text });
      event = { type: 'config.prompt', text };
    }
    // A live device takes it for its next turn; a config alone never spawns an actor.
    device(deviceId)?.send(event);
    return undefined;
  };

  client.on('message', (topic, payload) => {
    const t = parseFleetTopic(prefix, topic);
    if (!t.ok) {
      if (t.reason === 'invalid_device_id') reject(topic, t.reason, t.detail);
      return undefined;
    }
    const { deviceId } = t;
    if (!inShard(deviceId, shard)) {
      otherShard++;
      return undefined;
    }
    switch (t.input) {
      case 'skull/config/ia':
        return onConfig(topic, deviceId, 'ia', payload);
      case 'skull/config/prompt_system':
        return onConfig(topic, deviceId, 'prompt', payload);
      case 'ai/cancel': {
        const r = parsePayload(payload, cancelSchema, {});
        if (!r.ok) return reject(topic, r.reason, r.detail, deviceId);
        // A cancel for a device with no live actor has nothing to cancel: it spawns nothing.
        if (!edges.has(deviceId)) return undefined;
        return supervisor.send({ type: 'device.input', deviceId, event: { type: 'ai.cancel' } });
      }
      case 'asr/text':
      case 'ai/request': {
        const r = parsePayload(payload, textInputSchema);
        if (!r.ok) return reject(topic, r.reason, r.detail, deviceId);
        const event: SkullEvent = t.input === 'asr/text' ? { type: 'asr.text', text: r.value.text } : { type: 'ai.request', text: r.value.text };
        return supervisor.send({ type: 'device.input', deviceId, event });
      }
    }
  });

  client.on('connect', () => {
    log.info({ live: edges.size }, 'mqtt reconnected');
    for (const [deviceId, edge] of edges) {
      void publishCapabilities(deviceId);
      if (edge.replies.outbox.size > 0) void edge.replies.flush();
    }
  });
  // Config first: its retained messages are in the map before the first input of any device.
  await client.subscribeAsync(fleetSubscriptions(prefix, FLEET_CONFIG_INPUTS), { qos: 1 });
  await client.subscribeAsync(fleetSubscriptions(prefix, FLEET_WORK_INPUTS), { qos: 1 });

  const health = (): FleetHealth => {
    const ctx = supervisor.getSnapshot().context;
    let busy = 0;
    let open = 0;
    let kept = 0;
    let expired = repliesExpiredGone;
    let publishErrors = publishErrorsGone;
    for (const [deviceId, edge] of edges) {
      const snap = device(deviceId)?.getSnapshot();
      if (snap && inFlight(snap) > 0) busy++;
      if (snap && isBreakerOpen(snap.context.breaker.getSnapshot())) open++;
      kept += edge.replies.outbox.size;
      expired += edge.replies.outbox.expired;
      publishErrors += edge.replies.publishErrors + (snap?.context.stats.publishErrors ?? 0);
    }
    return {
      ts_ms: now(),
      ok: client.connected && supervisor.getSnapshot().status === 'active',
      instance,
      shard: `${shard.index}/${shard.count}`,
      live_actors: ctx.devices.size,
      max_actors: ctx.maxActors,
      busy_actors: busy,
      breakers_open: open,
      spawned: ctx.stats.spawned,
      idle_stopped: ctx.stats.idleStopped,
      evicted: ctx.stats.evicted,
      refused: ctx.stats.refused,
      rejected: Object.values(rejected).reduce((a, b) => a + b, 0),
      rejected_by_reason: { ...rejected },
      other_shard: otherShard,
      configs_kept: configs.size,
      replies_kept: kept,
      replies_expired: expired,
      publish_errors: publishErrors,
      provider: skull.providerName,
      mqtt_protocol: protocolVersion,
    };
  };
  const publishHealth = async () => {
    if (!client.connected) return;
    await client.publishAsync(healthTopic, JSON.stringify(health()), { qos: 0, retain: true });
  };
  const interval = opts.healthIntervalMs ?? config.SKULL_HEALTH_INTERVAL_MS;
  const timer = interval > 0
    ? setInterval(() => {
        for (const edge of edges.values()) edge.replies.outbox.sweep();
        void publishHealth().catch(() => undefined);
      }, interval)
    : undefined;
  timer?.unref();
  void publishHealth().catch(() => undefined);
  log.info({ instance, healthTopic, subscriptions: fleetSubscriptions(prefix), maxActors: config.SKULL_FLEET_MAX_ACTORS, idleStopS: config.SKULL_IDLE_STOP_S, provider: skull.providerName, protocolVersion }, 'skull fleet ready');

  /** Graceful stop: no new input, the turns in flight finish while time allows, kept replies go out. */
  const drain = async (deadlineAt: number): Promise<void> => {
    await client.unsubscribeAsync(fleetSubscriptions(prefix)).catch((err: Error) => log.warn({ err: err.message }, 'inputs not unsubscribed (broker away)'));
    const busyIds = () => [...edges.keys()].filter((id) => {
      const a = device(id);
      return a !== undefined && inFlight(a.getSnapshot()) > 0;
    });
    while (busyIds().length > 0 && Date.now() < deadlineAt) await new Promise((r) => setTimeout(r, 20));
    if (client.connected) {
      const flushes = [...edges.values()].filter((e) => e.replies.outbox.size > 0).map((e) => e.replies.flush());
      await Promise.race([Promise.all(flushes), new Promise((r) => setTimeout(r, Math.max(0, deadlineAt - Date.now())).unref())]);
    }
    const cut = busyIds();
    if (cut.length > 0) log.warn({ devices: cut.slice(0, 20), count: cut.length }, 'skull fleet stop: turns cut at the shutdown deadline');
    log.info({ live: edges.size, cut: cut.length }, 'skull fleet drained');
  };

  let stopping: Promise<void> | undefined;
  return {
    prefix,
    instance,
    shard,
    client,
    protocolVersion,
    supervisor,
    device,
    health,
    publishHealth,
    stop(stopOpts) {
      stopping ??= (async () => {
        if (stopOpts?.deadlineAt !== undefined) await drain(stopOpts.deadlineAt);
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
