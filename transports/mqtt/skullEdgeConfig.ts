import { z } from 'zod';

/**
 * What the Skull's MQTT edge reads of the configuration, declared here so that the edge knows no
 * section: the Skull's composition root hands in its section (actors/skull/skullConfig.ts), which
 * fits. The two schemas are the edge's rules for a device id and a shard; the section uses them.
 */
export interface SkullEdgeConfig {
  SKULL_DEVICE_ID: string;
  SKULL_TOPIC_PREFIX: string;
  SKULL_PROMPT_FILE: string;
  SKULL_HEALTH_INTERVAL_MS: number;
  SKULL_REPLY_TTL_MS: number;
  SKULL_OUTBOX_MAX: number;
  SKULL_FLEET_PREFIX?: string | undefined;
  SKULL_IDLE_STOP_S: number;
  SKULL_FLEET_MAX_ACTORS: number;
  SKULL_FLEET_CONFIG_MAX: number;
  SKULL_FLEET_SHARD: z.output<typeof shardSchema>;
  SKULL_FLEET_INSTANCE?: string | undefined;
}

/** A device id: one topic level, no wildcard, not empty, not too long, not `_…` (reserved). */
export const deviceIdSchema = z
  .string()
  .min(1, 'device id is empty')
  .max(64, 'device id longer than 64 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'device id: letters, digits, . _ - (not first), no MQTT wildcard or /');

/** `i/N` with 0 ≤ i < N. */
export const shardSchema = z
  .string()
  .regex(/^\d+\/\d+$/, 'expected i/N, e.g. 0/2')
  .transform((s) => {
    const [i, n] = s.split('/').map(Number) as [number, number];
    return { index: i, count: n };
  })
  .refine((s) => s.count >= 1 && s.count <= 1024 && s.index < s.count, 'expected 0 ≤ i < N ≤ 1024');
