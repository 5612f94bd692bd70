import type { Logger } from '../../core/log.js';
import type { skullMachine, SkullInput } from '../../machines/skull.js';
import type { Outgoing, SkullSettings } from '../../machines/skullTypes.js';

/**
 * What the Skull MQTT edges take from the surface's composition root (actors/skull/skullWiring.ts
 * implements it): the edge declares it, so it imports nothing above itself.
 */

/** What an edge gives: publish one reply on its connection, resolved once the broker acked it. */
export type PublishReply = (outgoing: Outgoing) => Promise<void>;

/** The skull chart as the edges start it. */
export type SkullChart = typeof skullMachine;

/**
 * The Skull's effects, provided once by the composition root (the only `.provide()` of the skull
 * chart): `generate` on the surface's provider (retries counted in metrics and logged), the offline persona responder, the prompt
 * file, the settings from config and the token counter. The MQTT edges receive this and add only
 * what belongs to their connection (the publish of a reply).
 */
export interface SkullWiring {
  settings: SkullSettings;
  /** The prompt file was read (else the built-in prompt is the default). */
  promptFromFile: boolean;
  providerName: string;
  /** The actor's input for one device. */
  input(deviceId: string): SkullInput;
  /**
   * The chart provided with its actors and this connection's publish (the chart's `publishReply`
   * effect calls it); `log` is the edge's
   * logger, `tagDevice` adds the device id to the fallback/apology lines (a fleet has many).
   */
  machine(publish: PublishReply, log: Logger, opts?: { tagDevice?: boolean }): SkullChart;
  /** Registers the offline responder; returns its unregister (called by the edge once connected). */
  activate(): () => void;
}
