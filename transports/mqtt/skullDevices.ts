import type { AnyActorLogic } from 'xstate';
import type { MqttClient } from 'mqtt';
import type { SkullEdgeConfig } from './skullEdgeConfig.js';
import type { Logger } from '../../core/log.js';
import type { Runtime } from '../../core/runtime.js';
import { isBreakerOpen } from '../../machines/breaker.js';
import { deviceBreaker, inFlight, type SkullActorRef, type SkullEvent } from '../../machines/skull.js';
import type { SkullWiring } from './skullPort.js';
import type { Outgoing, SkullSettings } from '../../machines/skullTypes.js';
import { beforeEffectLeaves } from '../../core/journal/durable.js';
import { releaseHeldWrites } from '../../core/tuning/holdWritesPerTurn.js';
import type { OutboxMessage } from './outbox.js';
import { ReplyChannel } from './replyChannel.js';
import { capabilitiesOf } from './skullSchemas.js';
import type { EdgeRejectReason } from './skullCodec.js';
import { RetainedConfigs } from './skullFleetConfigs.js';
import { FLEET_CONFIG_INPUTS } from './skullFleetTopics.js';
import type { SkullAddressing } from './skullTopics.js';

/**
 * The device actors the Skull edge holds, and what it keeps beside each (its reply channel,
 * breaker log, held inputs). One device is a set of one, started with the edge and stopped with
 * it; a fleet's supervisor chart (machines/skullFleet.ts) starts and stops them through
 * `spawn`, `stop`, `forward` and `busy`, as provided by the composition root.
 */

/** What the edge keeps per live device besides its actor. */
export interface DeviceEdge {
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

export interface SkullDevicesOptions {
  addressing: SkullAddressing;
  client: MqttClient;
  runtime: Runtime;
  config: Pick<SkullEdgeConfig, 'SKULL_OUTBOX_MAX' | 'SKULL_REPLY_TTL_MS'>;
  skull: SkullWiring;
  configs: RetainedConfigs;
  publish: (message: OutboxMessage) => Promise<void>;
  log: Logger;
  now: () => number;
  /** Many devices: log lines name their device. */
  fleet: boolean;
  /** Counts and logs a refused input (held overflow). */
  reject: (topic: string, reason: EdgeRejectReason, detail: string, deviceId?: string) => void;
}

export class SkullDevices {
  readonly edges = new Map<string, DeviceEdge>();
  /** Counts of devices already stopped, kept for the health. */
  repliesExpiredGone = 0;
  publishErrorsGone = 0;
  private readonly capabilities: string;
  private readonly deviceMachine: AnyActorLogic;

  constructor(private readonly o: SkullDevicesOptions) {
    this.capabilities = JSON.stringify(capabilitiesOf(o.skull.settings));
    // The one publisher of replies: ai/response then ai/usage on the reply's device, QoS 1, kept
    // while the broker is away. One provided device chart for all: it routes by the reply's deviceId.
    const publish = async (input: Outgoing): Promise<void> => {
      const deviceId = input.deviceId!;
      const messages: OutboxMessage[] = [{ topic: o.addressing.topic(deviceId, 'ai/response'), payload: JSON.stringify(input.response) }];
      if (input.usage) messages.push({ topic: o.addressing.topic(deviceId, 'ai/usage'), payload: JSON.stringify(input.usage) });
      // The steps that led to this reply, the one publishing it included, are durable before it leaves.
      const durable = beforeEffectLeaves();
      if (durable) await durable;
      const edge = this.edges.get(deviceId);
      const sent = edge ? edge.replies.send(messages) : sendAll(messages, o.publish);
      // ai/response is handed to mqtt.js by now (send publishes before its first await): the
      // request's PUBACK and the reply, held for this turn, leave together without waiting for the
      // rest of the turn (core/tuning/holdWritesPerTurn.ts).
      releaseHeldWrites(o.client);
      await sent;
    };
    this.deviceMachine = o.skull.machine(publish, o.log, { tagDevice: o.fleet });
  }

  device(deviceId: string): SkullActorRef | undefined {
    return this.o.runtime.get(this.o.addressing.systemId(deviceId)) as SkullActorRef | undefined;
  }

  /** The live devices' ids and actors. */
  *live(): Iterable<[string, SkullActorRef, DeviceEdge]> {
    for (const [deviceId, edge] of this.edges) {
      const actor = this.device(deviceId);
      if (actor) yield [deviceId, actor, edge];
    }
  }

  publishCapabilities(deviceId: string): Promise<void> {
    const { client, addressing, log } = this.o;
    return client.publishAsync(addressing.topic(deviceId, 'ai/capabilities'), this.capabilities, { qos: 1, retain: true }).then(
      () => undefined,
      (err: Error) => {
        log.warn({ ...(this.o.fleet ? { deviceId } : {}), err: err.message }, 'ai/capabilities not published');
      },
    );
  }

  /** Starts a device's actor with its retained config; `announce: false` leaves ai/capabilities to the caller. */
  spawn(deviceId: string, opts: { announce?: boolean } = {}): SkullActorRef {
    const { runtime, client, config, skull, now } = this.o;
    const log = this.o.fleet ? this.o.log.child({ deviceId }) : this.o.log;
    const systemId = this.o.addressing.systemId(deviceId);
    const actor = runtime.start('skull', systemId, this.deviceMachine, { now, ...skull.input(deviceId) }) as SkullActorRef;
    const replies = new ReplyChannel({ publish: this.o.publish, connected: () => client.connected, max: config.SKULL_OUTBOX_MAX, ttlMs: config.SKULL_REPLY_TTL_MS, now, log });
    const breakerSub = logBreakerChanges(actor, skull.settings, log);
    const edge: DeviceEdge = { systemId, replies, breakerSub, resubscribed: false, held: undefined };
    this.edges.set(deviceId, edge);
    // Its retained config first, so its first turn already uses it.
    const kept = this.o.configs.get(deviceId);
    if (kept?.ia !== undefined) actor.send({ type: 'config.ia', config: kept.ia });
    if (kept?.prompt !== undefined) actor.send({ type: 'config.prompt', text: kept.prompt });
    if (!kept && this.o.configs.evictedAny) this.rereadConfig(deviceId, edge);
    if (opts.announce !== false) void this.publishCapabilities(deviceId);
    this.o.log.debug({ deviceId, systemId }, 'device actor spawned');
    return actor;
  }

  forward(deviceId: string, event: SkullEvent): void {
    const held = this.edges.get(deviceId)?.held;
    if (held) {
      // A few inputs during a ~100 ms re-read; beyond the device's own bound they are refused.
      if (held.length < this.o.skull.settings.maxInFlight + 1) held.push(event);
      else this.o.reject(this.o.addressing.topic(deviceId, '…'), 'held_overflow', 'too many inputs while its retained config is read again', deviceId);
    } else this.device(deviceId)?.send(event);
  }

  stop(deviceId: string, why: string): void {
    const edge = this.edges.get(deviceId);
    if (edge) {
      edge.breakerSub.unsubscribe();
      this.repliesExpiredGone += edge.replies.outbox.expired + edge.replies.outbox.drop();
      this.publishErrorsGone += edge.replies.publishErrors;
      if (edge.resubscribed) void this.o.client.unsubscribeAsync(this.configTopics(deviceId)).catch(() => undefined);
      this.edges.delete(deviceId);
    }
    this.o.runtime.stop(this.o.addressing.systemId(deviceId));
    this.o.log.debug({ deviceId, why }, 'device actor stopped');
  }

  /** A turn in flight, inputs held, or replies kept or being flushed: the device may not be evicted. */
  busy(deviceId: string): boolean {
    const actor = this.device(deviceId);
    const edge = this.edges.get(deviceId);
    return (actor !== undefined && inFlight(actor.getSnapshot()) > 0) || (edge !== undefined && (edge.held !== undefined || edge.replies.outbox.size > 0 || edge.replies.isFlushing));
  }

  /** The live devices with a turn in flight. */
  busyIds(): string[] {
    return [...this.live()].filter(([, actor]) => inFlight(actor.getSnapshot()) > 0).map(([id]) => id);
  }

  private configTopics(deviceId: string): string[] {
    return FLEET_CONFIG_INPUTS.map((t) => this.o.addressing.topic(deviceId, t));
  }

  /**
   * Its config may have fallen out of the bounded map: the broker sends retained messages again on
   * subscribe. The device's inputs wait for it (or for SUBACK + a short grace when it has none).
   */
  private rereadConfig(deviceId: string, edge: DeviceEdge): void {
    const { client, log } = this.o;
    edge.resubscribed = true;
    edge.held = [];
    const release = () => {
      const held = edge.held ?? [];
      edge.held = undefined;
      const actor = this.device(deviceId);
      for (const e of held) actor?.send(e);
    };
    client
      .subscribeAsync(this.configTopics(deviceId), { qos: 1 })
      .then(() => new Promise((r) => setTimeout(r, CONFIG_REREAD_GRACE_MS)))
      .catch((err: Error) => log.warn({ deviceId, err: err.message }, 'config re-subscribe failed: environment defaults for this turn'))
      .finally(release);
    log.info({ deviceId }, 'retained config not in the map: read again from the broker');
  }
}

async function sendAll(messages: OutboxMessage[], publish: (m: OutboxMessage) => Promise<void>): Promise<void> {
  for (const m of messages) await publish(m);
}

/** Logs each breaker transition: the fallback model serves every call while it is open. */
function logBreakerChanges(actor: SkullActorRef, settings: SkullSettings, log: Logger): { unsubscribe(): void } {
  let wasOpen = false;
  return deviceBreaker(actor.getSnapshot()).subscribe((snap) => {
    const open = isBreakerOpen(snap);
    if (open === wasOpen) return;
    wasOpen = open;
    if (open) log.warn({ fallbackModel: settings.fallbackModel, cooldownMs: settings.breaker.cooldownMs }, 'breaker open: fallback model for every call');
    else log.info({ model: settings.model }, 'breaker closed: primary model again');
  });
}
