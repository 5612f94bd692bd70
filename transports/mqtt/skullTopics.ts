/**
 * The Skull's MQTT topics (docs/skull.md#topics), optionally under a prefix:
 * `<prefix>/asr/text`, `<prefix>/ai/response`… With no prefix they are exactly the spec's.
 */
export interface SkullTopics {
  asrText: string;
  aiRequest: string;
  aiCancel: string;
  configIa: string;
  configPrompt: string;
  aiResponse: string;
  aiUsage: string;
  aiCapabilities: string;
  aiHealth: string;
}

export function skullTopics(prefix = ''): SkullTopics {
  const p = prefix.replace(/\/+$/, '');
  const t = (topic: string) => (p ? `${p}/${topic}` : topic);
  return {
    asrText: t('asr/text'),
    aiRequest: t('ai/request'),
    aiCancel: t('ai/cancel'),
    configIa: t('skull/config/ia'),
    configPrompt: t('skull/config/prompt_system'),
    aiResponse: t('ai/response'),
    aiUsage: t('ai/usage'),
    aiCapabilities: t('ai/capabilities'),
    aiHealth: t('ai/health'),
  };
}

/** The spec's input topics of one device, below its prefix (the same names in a fleet). */
export const SKULL_INPUTS = ['asr/text', 'ai/request', 'ai/cancel', 'skull/config/ia', 'skull/config/prompt_system'] as const;
export type SkullInputName = (typeof SKULL_INPUTS)[number];

/** A device's topic, below its prefix (`…` names the device in a log line). */
type SkullTopicName = SkullInputName | 'ai/response' | 'ai/usage' | 'ai/capabilities' | '…';

type AddressedTopic =
  | { ok: true; deviceId: string; input: SkullInputName }
  | { ok: false; reason: 'not_skull_topic' | 'invalid_device_id' | 'other_shard'; detail: string };

/**
 * Where a device's topics are: the one difference between one device (its topics at the prefix,
 * its id from SKULL_DEVICE_ID) and a fleet (`<p>/<deviceId>/…`, skullFleetTopics.ts). The edge
 * (skullEdge.ts) reads and writes every topic through this.
 */
export interface SkullAddressing {
  /** The subscriptions of these inputs (exact topics, or one wildcard per input). */
  subscriptions(inputs: readonly SkullInputName[]): string[];
  /** A received topic → its device and input. */
  parse(topic: string): AddressedTopic;
  /** One of a device's topics. */
  topic(deviceId: string, name: SkullTopicName): string;
  /** The conversation id of a device's actor in the Runtime. */
  systemId(deviceId: string): string;
}

/** One device: the spec's topics at `prefix`. */
export function deviceAddressing(prefix: string, deviceId: string): SkullAddressing {
  const p = prefix.replace(/\/+$/, '');
  const t = (topic: string) => (p ? `${p}/${topic}` : topic);
  const inputs = new Map<string, SkullInputName>(SKULL_INPUTS.map((i) => [t(i), i]));
  return {
    subscriptions: (names) => names.map(t),
    parse(topic) {
      const input = inputs.get(topic);
      return input ? { ok: true, deviceId, input } : { ok: false, reason: 'not_skull_topic', detail: topic };
    },
    topic: (_deviceId, name) => t(name),
    systemId: () => `skull:${deviceId}`,
  };
}
