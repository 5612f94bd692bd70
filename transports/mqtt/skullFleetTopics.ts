import { deviceIdSchema } from './skullEdgeConfig.js';
import { SKULL_INPUTS, type SkullAddressing, type SkullInputName } from './skullTopics.js';

/**
 * Topics of a Skull fleet (SKULL_FLEET_PREFIX=<p>): every device under `<p>/<deviceId>/…` with the
 * spec's topics, one wildcard subscription per input topic, and the process's own health under
 * `<p>/_service/<instance>/health`. Device ids are checked here, at the edge (zod).
 */

/** The spec's input topics, below `<p>/<deviceId>/`. */
const FLEET_INPUTS = SKULL_INPUTS;
export type FleetInput = SkullInputName;
export const FLEET_CONFIG_INPUTS: readonly FleetInput[] = ['skull/config/ia', 'skull/config/prompt_system'];
export const FLEET_WORK_INPUTS: readonly FleetInput[] = ['asr/text', 'ai/request', 'ai/cancel'];

export function fleetPrefix(prefix: string): string {
  return prefix.replace(/\/+$/, '');
}

/** One wildcard subscription per input topic: `<p>/+/asr/text`… */
function fleetSubscriptions(prefix: string, inputs: readonly FleetInput[] = FLEET_INPUTS): string[] {
  const p = fleetPrefix(prefix);
  return inputs.map((t) => `${p}/+/${t}`);
}

function deviceTopic(prefix: string, deviceId: string, topic: string): string {
  return `${fleetPrefix(prefix)}/${deviceId}/${topic}`;
}

export function serviceHealthTopic(prefix: string, instance: string): string {
  return `${fleetPrefix(prefix)}/_service/${instance}/health`;
}

export type ParsedFleetTopic =
  | { ok: true; deviceId: string; input: FleetInput }
  | { ok: false; reason: 'not_fleet_topic' | 'invalid_device_id'; detail: string };

/** `<p>/<deviceId>/<input>` → its device and input; a bad id is refused with zod's reason. */
export function parseFleetTopic(prefix: string, topic: string): ParsedFleetTopic {
  const p = `${fleetPrefix(prefix)}/`;
  if (!topic.startsWith(p)) return { ok: false, reason: 'not_fleet_topic', detail: topic };
  const rest = topic.slice(p.length);
  const slash = rest.indexOf('/');
  if (slash < 0) return { ok: false, reason: 'not_fleet_topic', detail: topic };
  const input = rest.slice(slash + 1);
  if (!(FLEET_INPUTS as readonly string[]).includes(input)) return { ok: false, reason: 'not_fleet_topic', detail: topic };
  const id = deviceIdSchema.safeParse(rest.slice(0, slash));
  if (!id.success) return { ok: false, reason: 'invalid_device_id', detail: id.error.issues.map((i) => i.message).join('; ') };
  return { ok: true, deviceId: id.data, input: input as FleetInput };
}

/**
 * 32-bit FNV-1a over the id's UTF-8 bytes: stable across processes, Node versions and machines
 * (no seed), cheap, and well spread for short ids. A device belongs to shard `fnv1a(id) % N`.
 */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export interface Shard {
  index: number;
  count: number;
}

export function inShard(deviceId: string, shard: Shard): boolean {
  return shard.count === 1 || fnv1a(deviceId) % shard.count === shard.index;
}

/** A fleet: `<p>/<deviceId>/…`, the devices of other shards ignored. */
export function fleetAddressing(prefix: string, shard: Shard): SkullAddressing {
  const p = fleetPrefix(prefix);
  return {
    subscriptions: (inputs) => fleetSubscriptions(p, inputs),
    parse(topic) {
      const t = parseFleetTopic(p, topic);
      if (!t.ok) return { ok: false, reason: t.reason === 'not_fleet_topic' ? 'not_skull_topic' : t.reason, detail: t.detail };
      return inShard(t.deviceId, shard) ? t : { ok: false, reason: 'other_shard', detail: t.deviceId };
    },
    topic: (deviceId, name) => deviceTopic(p, deviceId, name),
    systemId: (deviceId) => `skull:${p}/${deviceId}`,
  };
}
