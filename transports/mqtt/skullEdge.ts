import { hostname } from 'node:os';
import { createActor, type Actor } from 'xstate';
import type { MqttClient } from 'mqtt';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import type { Runtime } from '../../core/runtime.js';
import type { MqttEdge, MqttService } from '../../core/mqtt/service.js';
import type { SkullActorRef, SkullEvent } from '../../machines/skull.js';
import type { FleetHooks, skullFleetMachine } from '../../machines/skullFleet.js';
import type { SkullWiring } from './skullPort.js';
import type { SkullEdgeConfig } from './skullEdgeConfig.js';
import { coalesceWritesOfThisTurn } from '../../core/tuning/holdWritesPerTurn.js';
import { ackedPublisher } from './replyChannel.js';
import { decodeSkullInput, InputLedger, type EdgeRejectReason } from './skullCodec.js';
import { SkullDevices } from './skullDevices.js';
import { RetainedConfigs } from './skullFleetConfigs.js';
import { FLEET_CONFIG_INPUTS, FLEET_WORK_INPUTS, fleetAddressing, fleetPrefix, serviceHealthTopic, type Shard } from './skullFleetTopics.js';
import { deviceHealth, fleetHealth, type FleetHealth, type HealthPayload } from './skullHealth.js';
import { drain } from './skullDrain.js';
import { capabilitiesOf, iaConfigFor } from './skullSchemas.js';
import { deviceAddressing, skullTopics, SKULL_INPUTS, type SkullAddressing, type SkullTopics } from './skullTopics.js';


/**
 * The Skull's MQTT edge, for one device and for a fleet alike: one device is a fleet of one. It
 * parses and validates every input (skullCodec.ts, with skullSchemas.ts), routes it as a typed
 * event to its device's actor, publishes what the actor produces (skullDevices.ts), builds the
 * health from the charts' selectors (skullHealth.ts) and drains on stop. No business rule here:
 * debounce, busy, queue, policy, retries and fallback are the device chart's (machines/skull.ts);
 * which devices live is the supervisor chart's (machines/skullFleet.ts).
 *
 * What differs is where the topics are (skullTopics.ts `SkullAddressing`) and who starts the
 * devices:
 * - one device (`startSkullService`): the spec's topics at SKULL_TOPIC_PREFIX, its actor started
 *   with the edge and stopped with it; its health is its own, on `ai/health`.
 * - a fleet (`startSkullFleet`, SKULL_FLEET_PREFIX=<p>): one wildcard subscription per input topic,
 *   `<p>/<deviceId>/…`, the device id validated (zod); the supervisor chart spawns a device's actor
 *   on its first input, stops it after SKULL_IDLE_STOP_S of silence and bounds how many live
 *   (SKULL_FLEET_MAX_ACTORS). Retained config arrives for every device when we subscribe: it is
 *   kept in a bounded map (RetainedConfigs) and given to the device's actor when it is spawned — a
 *   config does not spawn an actor. Sharding (SKULL_FLEET_SHARD=i/N): every process subscribes to
 *   the same wildcards and ignores the devices whose id does not hash to i (FNV-1a). Its health is
 *   the process's: `<p>/_service/<instance>/health`.
 *
 * Its connection is its own, opened by core's MQTT service (`ctx.mqtt`, core/mqtt/service.ts) with
 * its client id and its last will; its subscriptions are declared (`mqtt`: retained configs first,
 * then work) and core subscribes them, routes their messages here, and unsubscribes them at the
 * start of the drain, before `stop`; core ends the connection once the surfaces have drained.
 *
 * Outputs: ai/response then ai/usage (QoS 1, from the chart's `publishReply`), ai/capabilities
 * (retained, QoS 1, when a device starts and on every reconnection), the health every
 * SKULL_HEALTH_INTERVAL_MS (retained; the connection's last will replaces it with `ok:false` if
 * the service dies).
 */
interface SkullEdgeOptions {
  config: SkullEdgeConfig;
  logger: Logger;
  runtime: Runtime;
  /** The device chart's actors, settings and input, wired by the composition root (actors/skull/skullWiring.ts). */
  skull: SkullWiring;
  /** The process's MQTT service: the edge's connection comes from it. */
  mqtt: MqttService;
  metrics?: Metrics;
  /** Clock for latency figures (SimulatedClock.now in tests); the same as the wiring's. */
  now?: () => number;
  /** 0 disables the periodic health (tests publish it by hand). */
  healthIntervalMs?: number;
}

export type SkullServiceOptions = SkullEdgeOptions;

/** The supervisor chart, provided over this edge's hooks by the composition root. */
type FleetSupervisorLogic = typeof skullFleetMachine;

export interface SkullFleetOptions extends SkullEdgeOptions {
  /** The supervisor chart provided over this edge's hooks (actors/skull/skullWiring.ts). */
  supervisor: (hooks: FleetHooks) => FleetSupervisorLogic;
}

export interface SkullService {
  actor: SkullActorRef;
  systemId: string;
  topics: SkullTopics;
  protocolVersion: 4 | 5;
  client: MqttClient;
  health(): HealthPayload;
  publishHealth(): Promise<void>;
  /** Its subscriptions and their handler, for core to mount. */
  mqtt: MqttEdge;
  /**
   * Without `deadlineAt`: stops now. With it (a signal; core has unsubscribed the inputs): the
   * turns in flight and the queued ones finish and publish while time allows (what is left is
   * logged as dropped), kept replies are sent if the broker is there, then it stops and says so
   * on its health topic. Core ends the connection afterwards.
   */
  stop(opts?: { deadlineAt?: number }): Promise<void>;
}

export interface SkullFleet {
  prefix: string;
  instance: string;
  shard: Shard;
  client: MqttClient;
  protocolVersion: 4 | 5;
  supervisor: Actor<FleetSupervisorLogic>;
  /** The live actor of a device, if any. */
  device(deviceId: string): SkullActorRef | undefined;
  health(): FleetHealth;
  publishHealth(): Promise<void>;
  /** Its subscriptions and their handler, for core to mount. */
  mqtt: MqttEdge;
  stop(opts?: { deadlineAt?: number }): Promise<void>;
}

/** How the edge serves: one device, or a fleet. */
interface Mode {
  addressing: SkullAddressing;
  fleet: boolean;
  clientId: string;
  healthTopic: string;
  log: Logger;
  /** Subscribed first: their retained messages are in the map before the first input of any device. */
  configTopics: string[];
  workTopics: string[];
}

/** One device: the spec's topics at SKULL_TOPIC_PREFIX, its actor started with the edge. */
export async function startSkullService(opts: SkullServiceOptions): Promise<SkullService> {
  const { config } = opts;
  const deviceId = config.SKULL_DEVICE_ID;
  const topics = skullTopics(config.SKULL_TOPIC_PREFIX);
  const addressing = deviceAddressing(config.SKULL_TOPIC_PREFIX, deviceId);
  const mode: Mode = {
    addressing,
    fleet: false,
    // Unique per connection: two services on one broker must not take over each other's session.
    clientId: `palabre-${deviceId}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    healthTopic: topics.aiHealth,
    log: opts.logger.child({ surface: 'skull' }),
    configTopics: [],
    workTopics: addressing.subscriptions(SKULL_INPUTS),
  };
  const edge = await startEdge(opts, mode);
  // Started before the subscription, so that its retained config reaches it; announced after it.
  const actor = edge.devices.spawn(deviceId, { announce: false });
  const { replies } = edge.devices.edges.get(deviceId)!;
  const health = (): HealthPayload =>
    deviceHealth({
      snapshot: actor.getSnapshot(),
      connected: edge.client.connected,
      protocolVersion: edge.protocolVersion,
      replies,
      ledger: edge.ledger,
      settings: opts.skull.settings,
      providerName: opts.skull.providerName,
      promptSource: typeof edge.configs.peek(deviceId)?.prompt === 'string' ? 'retained' : opts.skull.promptFromFile ? 'file' : 'builtin',
      now: edge.now,
    });
  const systemId = addressing.systemId(deviceId);
  const { publishHealth, stop, mqtt } = edge.serve(health, {
    route: (id, event) => edge.devices.forward(id, event),
    stopDevices: () => edge.devices.stop(deviceId, 'shutdown'),
    subscribed: () => edge.devices.publishCapabilities(deviceId),
    ready: () => mode.log.info({ systemId, topics: topics.asrText, model: opts.skull.settings.model, provider: opts.skull.providerName, protocolVersion: edge.protocolVersion }, 'skull ready'),
  });
  return { actor, systemId, topics, protocolVersion: edge.protocolVersion, client: edge.client, health, publishHealth, mqtt, stop };
}

/** A fleet (SKULL_FLEET_PREFIX): devices under `<p>/<deviceId>/…`, spawned and stopped by the supervisor chart. */
export async function startSkullFleet(opts: SkullFleetOptions): Promise<SkullFleet> {
  const { config } = opts;
  const prefix = fleetPrefix(config.SKULL_FLEET_PREFIX ?? '');
  if (!prefix) throw new Error('SKULL_FLEET_PREFIX is empty: set it to serve a fleet, or leave it unset for one device');
  const shard = config.SKULL_FLEET_SHARD;
  const instance = config.SKULL_FLEET_INSTANCE ?? `${hostname().replace(/[^A-Za-z0-9._-]/g, '-')}-${process.pid}`;
  const addressing = fleetAddressing(prefix, shard);
  const mode: Mode = {
    addressing,
    fleet: true,
    clientId: `palabre-fleet-${instance}-${Math.random().toString(36).slice(2, 8)}`,
    healthTopic: serviceHealthTopic(prefix, instance),
    log: opts.logger.child({ surface: 'skull', fleet: prefix, shard: `${shard.index}/${shard.count}` }),
    configTopics: addressing.subscriptions(FLEET_CONFIG_INPUTS),
    workTopics: addressing.subscriptions(FLEET_WORK_INPUTS),
  };
  const edge = await startEdge(opts, mode);
  const { devices } = edge;
  const supervisor = createActor(
    opts.supervisor({
      spawnDevice: (deviceId) => void devices.spawn(deviceId),
      stopDevice: (deviceId, why) => devices.stop(deviceId, why),
      forward: (deviceId, event) => devices.forward(deviceId, event),
      refuse: (deviceId, live) =>
        edge.reject(addressing.topic(deviceId, '…'), 'fleet_full', `${live} live device actors, all busy (SKULL_FLEET_MAX_ACTORS=${config.SKULL_FLEET_MAX_ACTORS}); input refused`, deviceId),
      deviceBusy: (deviceId) => devices.busy(deviceId),
    }),
    {
      input: { maxActors: config.SKULL_FLEET_MAX_ACTORS, idleStopMs: Math.round(config.SKULL_IDLE_STOP_S * 1000) },
      // Its own actor system (same clock), not a root conversation: XState's scheduler finds a
      // cancelled delayed event by walking every delayed event of its system, and a turn cancels
      // several (attempt, backoff and publish timeouts). With one idle timer per device in the root's
      // system, every turn of every device would walk 10,000 timers (measured: bench/skull-fleet.ts).
      ...(opts.runtime.clock ? { clock: opts.runtime.clock } : {}),
    },
  );
  supervisor.start();
  const health = (): FleetHealth =>
    fleetHealth({
      supervisor: supervisor.getSnapshot(),
      devices,
      ledger: edge.ledger,
      connected: edge.client.connected,
      instance,
      shard: `${shard.index}/${shard.count}`,
      configsKept: edge.configs.size,
      providerName: opts.skull.providerName,
      protocolVersion: edge.protocolVersion,
      now: edge.now,
    });
  const { publishHealth, stop, mqtt } = edge.serve(health, {
    route: (deviceId, event) => supervisor.send({ type: 'device.input', deviceId, event }),
    stopDevices: () => {
      supervisor.send({ type: 'fleet.stopAll' });
      supervisor.stop();
    },
    ready: () =>
      mode.log.info(
        { instance, healthTopic: mode.healthTopic, subscriptions: addressing.subscriptions(SKULL_INPUTS), maxActors: config.SKULL_FLEET_MAX_ACTORS, idleStopS: config.SKULL_IDLE_STOP_S, provider: opts.skull.providerName, protocolVersion: edge.protocolVersion },
        'skull fleet ready',
      ),
  });
  return { prefix, instance, shard, client: edge.client, protocolVersion: edge.protocolVersion, supervisor, device: (deviceId) => devices.device(deviceId), health, publishHealth, mqtt, stop };
}

type Reject = (topic: string, reason: EdgeRejectReason, detail: string, deviceId?: string) => void;

interface Lifecycle {
  /** Hands a work input (text, cancel) of a device to whoever runs it. */
  route(deviceId: string, event: SkullEvent): void;
  /** Stops every device (after the drain). */
  stopDevices(): void;
  /** Once subscribed, before the first health: one device announces its capabilities. */
  subscribed?: () => Promise<void>;
  /** Once subscribed and the first health sent: the `ready` log line. */
  ready(): void;
}

/** The connection and what every mode shares: devices, codec, publisher, health, drain. */
async function startEdge(opts: SkullEdgeOptions, mode: Mode) {
  const { config, runtime, skull } = opts;
  const { log, addressing } = mode;
  const now = opts.now ?? Date.now;
  if (!skull.promptFromFile) log.warn({ path: config.SKULL_PROMPT_FILE }, 'prompt file missing or empty: using the built-in prompt');
  const connection = await opts.mqtt.connect({
    clientId: mode.clientId,
    logger: log,
    will: { topic: mode.healthTopic, payload: JSON.stringify({ ok: false, reason: 'offline' }), retain: true, qos: 1 },
  });
  const { client, protocolVersion } = connection;
  // Every reply in flight listens for 'close' (ackedPublisher): hundreds at once in a fleet.
  client.setMaxListeners(0);
  // Registered once connected, so a failed start leaves nothing behind.
  const unregister = skull.activate();
  const ledger = new InputLedger();
  const configs = new RetainedConfigs(config.SKULL_FLEET_CONFIG_MAX);
  const reject: Reject = (topic, reason, detail, deviceId) => {
    ledger.rejected[reason] = (ledger.rejected[reason] ?? 0) + 1;
    opts.metrics?.inputRejected.inc({ surface: 'skull', reason });
    log.warn({ topic, reason, detail, ...(mode.fleet && deviceId ? { deviceId } : {}) }, 'input rejected');
  };
  const devices = new SkullDevices({ addressing, client, runtime, config, skull, configs, publish: ackedPublisher(client), log, now, fleet: mode.fleet, reject });

  /**
   * Its MQTT edge as core mounts it (the handler, retained configs subscribed before work; once
   * subscribed: capabilities, then the health), the health publisher and the stop.
   */
  function serve(health: () => object, life: Lifecycle): { publishHealth(): Promise<void>; stop(opts?: { deadlineAt?: number }): Promise<void>; mqtt: MqttEdge } {
    // A retained config may only pick among the models and the language ai/capabilities announces.
    const onMessage = routeInputs({ client, addressing, iaSchema: iaConfigFor(capabilitiesOf(skull.settings)), devices, configs, ledger, reject, route: life.route, log, fleet: mode.fleet });
    // Every reconnection republishes capabilities (a broker restart without persistence loses them);
    // the subscriptions come back by themselves (mqtt.js, core/mqtt/connect.ts).
    client.on('connect', () => {
      log.info({ live: devices.edges.size, kept: [...devices.edges.values()].reduce((n, e) => n + e.replies.outbox.size, 0) }, 'mqtt reconnected');
      for (const [deviceId, edge] of devices.edges) {
        void devices.publishCapabilities(deviceId);
        if (edge.replies.outbox.size > 0) void edge.replies.flush();
      }
    });
    const publishHealth = async () => {
      if (!client.connected) return;
      await client.publishAsync(mode.healthTopic, JSON.stringify(health()), { qos: 0, retain: true });
    };
    const interval = opts.healthIntervalMs ?? config.SKULL_HEALTH_INTERVAL_MS;
    let timer: NodeJS.Timeout | undefined;
    const mqtt: MqttEdge = {
      connection,
      subscriptions: [...(mode.configTopics.length > 0 ? [{ filters: mode.configTopics, qos: 1 as const }] : []), { filters: mode.workTopics, qos: 1 }],
      onMessage,
      async subscribed() {
        await life.subscribed?.();
        timer = interval > 0
          ? setInterval(() => {
              // Expiries are logged when they happen, not only when the broker returns.
              for (const edge of devices.edges.values()) edge.replies.outbox.sweep();
              void publishHealth().catch(() => undefined);
            }, interval)
          : undefined;
        timer?.unref();
        void publishHealth().catch(() => undefined);
        life.ready();
      },
    };

    let stopping: Promise<void> | undefined;
    const stop = (stopOpts?: { deadlineAt?: number }): Promise<void> => {
      stopping ??= (async () => {
        if (stopOpts?.deadlineAt !== undefined) await drain({ client, devices, log, fleet: mode.fleet }, stopOpts.deadlineAt);
        if (timer) clearInterval(timer);
        life.stopDevices();
        unregister();
        // A clean stop says so (the will only fires on an unclean loss).
        if (client.connected) {
          await client.publishAsync(mode.healthTopic, JSON.stringify({ ok: false, reason: 'stopped' }), { qos: 1, retain: true }).catch(() => undefined);
        }
      })();
      return stopping;
    };
    return { publishHealth, stop, mqtt };
  }

  return { client, protocolVersion, ledger, configs, devices, now, reject, serve };
}

interface RouteOptions {
  client: MqttClient;
  addressing: SkullAddressing;
  iaSchema: ReturnType<typeof iaConfigFor>;
  devices: SkullDevices;
  configs: RetainedConfigs;
  ledger: InputLedger;
  reject: Reject;
  route: Lifecycle['route'];
  log: Logger;
  fleet: boolean;
}

/** Every message: topic addressed, payload decoded (zod), then to its device (work) or the config map. */
function routeInputs(r: RouteOptions): MqttEdge['onMessage'] {
  const { client, addressing, devices, configs, ledger, reject, log } = r;
  // A fleet receives every device's retained config at subscribe: one line each would flood the log.
  const configLog = r.fleet ? log.debug.bind(log) : log.info.bind(log);
  return (topic, payload) => {
    const t = addressing.parse(topic);
    if (!t.ok) {
      if (t.reason === 'invalid_device_id') reject(topic, t.reason, t.detail);
      else if (t.reason === 'other_shard') ledger.otherShard++;
      return;
    }
    const { deviceId, input } = t;
    const d = decodeSkullInput(input, payload, r.iaSchema);
    if (!d.ok) {
      if (!d.kept) return reject(topic, d.reason, d.detail, deviceId);
      ledger.invalidConfig++;
      ledger.lastConfigError = `${topic}: ${d.reason} (${d.detail})`;
      return reject(topic, d.reason, `${d.detail}; keeping the last good ${d.kept}`, deviceId);
    }
    const { event } = d;
    const tag = r.fleet ? { deviceId } : {};
    switch (event.type) {
      case 'config.ia':
        configs.set(deviceId, { ia: event.config });
        if (event.config === null) configLog(tag, 'retained skull/config/ia cleared: environment defaults apply');
        else configLog({ ...tag, config: event.config }, 'skull/config/ia applied for the next turn');
        // A live device takes it for its next turn; a config alone never spawns an actor.
        return devices.device(deviceId)?.send(event);
      case 'config.prompt':
        configs.set(deviceId, { prompt: event.text });
        if (event.text === null) configLog(tag, 'retained prompt_system cleared: using the prompt file');
        else configLog({ ...tag, chars: event.text.length }, 'prompt_system applied for the next turn');
        return devices.device(deviceId)?.send(event);
      case 'ai.cancel':
        // A cancel for a device with no live actor has nothing to cancel: it spawns nothing.
        if (!devices.edges.has(deviceId)) return;
        return r.route(deviceId, event);
      default:
        coalesceWritesOfThisTurn(client);
        return r.route(deviceId, event);
    }
  };
}
