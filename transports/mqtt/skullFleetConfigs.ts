import type { IaConfig } from '../../machines/skullTypes.js';

/** A device's retained config as last seen on the broker (`null` = cleared, absent = never seen). */
export interface KeptConfig {
  ia?: IaConfig | null;
  prompt?: string | null;
}

/**
 * Retained configs of a fleet's devices, kept while their actors are stopped so that a re-spawned
 * actor starts with its config (the broker sends retained messages only on subscribe). Bounded: past
 * `max` devices the least recently used goes, and `evictedAny` tells the fleet to re-subscribe to a
 * device's config topics when it finds no entry for it.
 */
export class RetainedConfigs {
  private readonly map = new Map<string, KeptConfig>();
  evictedAny = false;

  constructor(private readonly max: number) {}

  get size(): number {
    return this.map.size;
  }

  get(deviceId: string): KeptConfig | undefined {
    const v = this.map.get(deviceId);
    if (v) {
      this.map.delete(deviceId);
      this.map.set(deviceId, v);
    }
    return v;
  }

  /** The device's entry, without making it the most recently used. */
  peek(deviceId: string): KeptConfig | undefined {
    return this.map.get(deviceId);
  }

  /** Merges one topic's value into the device's entry. */
  set(deviceId: string, patch: KeptConfig): void {
    const v = { ...this.map.get(deviceId), ...patch };
    this.map.delete(deviceId);
    this.map.set(deviceId, v);
    while (this.map.size > this.max) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
      this.evictedAny = true;
    }
  }
}
