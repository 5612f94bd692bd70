import type { AnyActorLogic } from 'xstate';
import type { MqttClient } from 'mqtt';
import type { Config } from '../../core/config/index.js';
import type { Logger } from '../../core/log.js';
import type { Runtime } from '../../core/runtime.js';
import { inFlight, type SkullActorRef, type SkullEvent } from '../../machines/skull.js';
import type { SkullWiring } from '../../actors/skull/skullWiring.js';
import type { Outgoing } from '../../actors/skull/types.js';
import type { OutboxMessage } from './outbox.js';
import { ReplyChannel } from './replyChannel.js';
import { capabilitiesOf } from './skull.js';
import { logBreakerChanges } from './skullHealth.js';
import { RetainedConfigs } from './skullFleetConfigs.js';
import { deviceTopic, FLEET_CONFIG_INPUTS } from './skullFleetTopics.js';

/**
 * The device actors a fleet edge holds, and what it keeps beside each (its reply channel, breaker
 * log, held inputs): the supervisor chart's `spawnDevice`, `stopDevice`, `forward` and `deviceBusy`
 * (machines/skullFleet.ts) are these methods.
 */

/** What the transport keeps per live device besides its actor. */
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

export interface FleetDevicesOptions {
  prefix: string;
  client: MqttClient;
  runtime: Runtime;
  config: Config;
  skull: SkullWiring;
  configs: RetainedConfigs;
  publish: (message: OutboxMessage) => Promise<void>;
  log: Logger;
  now: () => number;
  /** Counts and logs a refused input (held overflow). */
  reject: (topic: string, reason: string, detail: string, deviceId?: string) => void;
}

export class FleetDevices {
  readonly edges = new Map<string, DeviceEdge>();
  /** Counts of devices already stopped, kept for the fleet's health. */
  repliesExpiredGone = 0;
  publishErrorsGone = 0;
  private readonly capabilities: string;
  private readonly deviceMachine: AnyActorLogic;

  constructor(private readonly o: FleetDevicesOptions) {
    this.capabilities = JSON.stringify(capabilitiesOf(o.skull.settings));
    // One provided device chart for the whole fleet: the publish routes by the reply's deviceId.
    const publish = async (input: Outgoing): Promise<void> => {
      const deviceId = input.deviceId!;
      const messages: OutboxMessage[] = [{ topic: deviceTopic(o.prefix, deviceId, 'ai/response'), payload: JSON.stringify(input.response) }];
      if (input.usage) messages.push({ topic: deviceTopic(o.prefix, deviceId, 'ai/usage'), payload: JSON.stringify(input.usage) });
      const edge = this.edges.get(deviceId);
      if (edge) await edge.replies.send(messages);
      else for (const m of messages) await o.publish(m);
    };
    this.deviceMachine = o.skull.machine(publish, o.log, { tagDevice: true });
  }

  systemIdOf(deviceId: string): string {
    return `skull:${this.o.prefix}/${deviceId}`;
  }

  device(deviceId: string): SkullActorRef | undefined {
    return this.o.runtime.get(this.systemIdOf(deviceId)) as SkullActorRef | undefined;
  }

  publishCapabilities(deviceId: string): Promise<void> {
    const { client, prefix, log } = this.o;
    return client.publishAsync(deviceTopic(prefix, deviceId, 'ai/capabilities'), this.capabilities, { qos: 1, retain: true }).then(
      () => undefined,
      (err: Error) => {
        log.warn({ deviceId, err: err.message }, 'ai/capabilities not published');
      },
    );
  }

  spawn(deviceId: string): void {
    const { runtime, client, config, skull, log, now } = this.o;
    const systemId = this.systemIdOf(deviceId);
    const actor = runtime.start('skull', systemId, this.deviceMachine, { now, ...skull.input(deviceId) }) as SkullActorRef;
    const replies = new ReplyChannel({ publish: this.o.publish, connected: () => client.connected, max: config.SKULL_OUTBOX_MAX, ttlMs: config.SKULL_REPLY_TTL_MS, now, log: log.child({ deviceId }) });
    const breakerSub = logBreakerChanges(actor, skull.settings, log.child({ deviceId }));
    const edge: DeviceEdge = { systemId, replies, breakerSub, resubscribed: false, held: undefined };
    this.edges.set(deviceId, edge);
    // Its retained config first, so its first turn already uses it.
    const kept = this.o.configs.get(deviceId);
    if (kept?.ia !== undefined) actor.send({ type: 'config.ia', config: kept.ia });
    if (kept?.prompt !== undefined) actor.send({ type: 'config.prompt', text: kept.prompt });
    if (!kept && this.o.configs.evictedAny) this.rereadConfig(deviceId, edge);
    void this.publishCapabilities(deviceId);
    log.debug({ deviceId, systemId }, 'device actor spawned');
  }

  forward(deviceId: string, event: SkullEvent): void {
    const held = this.edges.get(deviceId)?.held;
    if (held) {
      // A few inputs during a ~100 ms re-read; beyond the device's own bound they are refused.
      if (held.length < this.o.skull.settings.maxInFlight + 1) held.push(event);
      else this.o.reject(deviceTopic(this.o.prefix, deviceId, '…'), 'held_overflow', 'too many inputs while its retained config is read again', deviceId);
    } else this.device(deviceId)?.send(event);
  }

  stop(deviceId: string, why: string): void {
    const edge = this.edges.get(deviceId);
    if (edge) {
      edge.breakerSub.unsubscribe();
      this.repliesExpiredGone += edge.replies.outbox.expired + edge.replies.outbox.drop();
      this.publishErrorsGone += edge.replies.publishErrors;
      if (edge.resubscribed) void this.o.client.unsubscribeAsync(FLEET_CONFIG_INPUTS.map((t) => deviceTopic(this.o.prefix, deviceId, t))).catch(() => undefined);
      this.edges.delete(deviceId);
    }
    this.o.runtime.stop(this.systemIdOf(deviceId));
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
    return [...this.edges.keys()].filter((id) => {
      const a = this.device(id);
      return a !== undefined && inFlight(a.getSnapshot()) > 0;
    });
  }

  /**
   * Its config may have fallen out of the bounded map: the broker sends retained messages again on
   * subscribe. The device's inputs wait for it (or for SUBACK + a short grace when it has none).
   */
  private rereadConfig(deviceId: string, edge: DeviceEdge): void {
    const { client, prefix, log } = this.o;
    edge.resubscribed = true;
    edge.held = [];
    const release = () => {
      const held = edge.held ?? [];
      edge.held = undefined;
      const actor = this.device(deviceId);
      for (const e of held) actor?.send(e);
    };
    client
      .subscribeAsync(FLEET_CONFIG_INPUTS.map((t) => deviceTopic(prefix, deviceId, t)), { qos: 1 })
      .then(() => new Promise((r) => setTimeout(r, CONFIG_REREAD_GRACE_MS)))
      .catch((err: Error) => log.warn({ deviceId, err: err.message }, 'config re-subscribe failed: environment defaults for this turn'))
      .finally(release);
    log.info({ deviceId }, 'retained config not in the map: read again from the broker');
  }
}
