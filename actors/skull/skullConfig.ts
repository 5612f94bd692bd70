import { z } from 'zod';
import { configSection, type ConfigValues } from '../../core/config/section.js';
import { ms, positiveInt, secret } from '../../core/config/keyTypes.js';
import { deviceIdSchema, shardSchema } from '../../transports/mqtt/skullEdgeConfig.js';

/**
 * The Skull's section (docs/skull.md#configuration), declared by the Skull surface. Its own module,
 * zod only: `actors/surfaces.ts` carries it eagerly while the surface's code stays unloaded.
 */
export const skullConfig = configSection({
  title: 'Skull',
  secrets: ['SKULL_API_KEY'],
  shape: {
    AI_MODEL: z.string().min(1).default('gpt-6.1-terra')
      .describe('Skull primary model (OpenAI\'s recommended replacement for the spec\'s gpt-5-mini, which shuts down on 2026-12-11; see docs/providers.md)'),
    AI_FALLBACK_MODEL: z.string().min(1).default('gpt-6-luna')
      .describe('Model used while the breaker is open, or when the provider no longer lists AI_MODEL (replaces the spec\'s gpt-5-nano; see docs/providers.md)'),
    AI_TIMEOUT_S: z.coerce.number().positive().default(12).describe('Per-attempt timeout of the primary model, seconds'),
    AI_FALLBACK_TIMEOUT_S: z.coerce.number().positive().default(6).describe('Per-attempt timeout of the fallback model, seconds (the spec: 6 s nano, 12 s mini)'),
    AI_MAX_TOKENS: positiveInt.default(256).describe('Output token limit'),
    AI_TEMPERATURE: z.coerce.number().min(0).max(2).default(0.7).describe('Sent only to models that accept it'),
    AI_TOP_P: z.coerce.number().min(0).max(1).default(0.9).describe('Sent only to models that accept it'),
    AI_LANG: z.string().default('fr').describe('Reply language'),
    SKULL_PROVIDER: z.enum(['auto', 'openai', 'anthropic', 'gemini', 'offline']).default('auto').describe('Provider for Skull'),
    SKULL_BASE_URL: z.string().url().optional().describe('Endpoint for Skull only (overrides the provider-wide base URL; with SKULL_PROVIDER=auto it means an OpenAI-compatible server)'),
    SKULL_API_KEY: secret.describe('Key for Skull only (overrides the provider-wide key)'),
    SKULL_PROMPT_FILE: z.string().default('prompts/skull/prompt.txt').describe('Default system prompt file (the spec\'s /opt/Skull/config/prompt.txt)'),
    SKULL_TOPIC_PREFIX: z.string().regex(/^[^#+]*$/, 'no MQTT wildcards').default('').describe('Optional topic prefix for fleets (`<prefix>/asr/text`)'),
    SKULL_DEVICE_ID: z.string().default('skull').describe('Device id (MQTT client id and actor systemId)'),
    SKULL_DEBOUNCE_MS: ms.default(300).describe('Identical ASR text within this window → one generation'),
    SKULL_MAX_IN_FLIGHT: positiveInt.default(3).describe('ai/request queue bound'),
    SKULL_HEALTH_INTERVAL_MS: ms.default(2000).describe('ai/health period'),
    SKULL_MAX_SENTENCES: positiveInt.max(10).default(3).describe('Longest reply, in sentences'),
    SKULL_MAX_TOKENS_CAP: positiveInt.default(512).describe('Largest max_tokens a device may ask (ai/capabilities); it is the 30 % of the turn budget kept for output'),
    SKULL_PUBLISH_TIMEOUT_MS: ms.default(10000).describe('Longest wait for the broker to acknowledge a reply (QoS 1) before the turn ends'),
    SKULL_REPLY_TTL_MS: ms.default(30000).describe('A reply made while the broker is away is kept this long, then dropped (logged, counted in ai/health `replies_expired`)'),
    SKULL_OUTBOX_MAX: positiveInt.default(20).describe('Replies kept at most while the broker is away (the oldest goes first)'),
    SKULL_FLEET_PREFIX: z.string().regex(/^[^#+]+$/, 'no MQTT wildcards').optional()
      .describe('Fleet mode: serve every device under `<prefix>/<deviceId>/…` (one actor per device); unset = one device (SKULL_DEVICE_ID)'),
    SKULL_IDLE_STOP_S: z.coerce.number().positive().default(600).describe('Fleet: a device actor silent this long is stopped (its retained config is given again on its next message)'),
    SKULL_FLEET_MAX_ACTORS: positiveInt.default(5000).describe('Fleet: most live device actors in this process; at the bound the longest idle is stopped, and if all are busy the new device is refused (logged, counted)'),
    SKULL_FLEET_CONFIG_MAX: positiveInt.default(20000).describe('Fleet: retained configs kept for stopped devices (the oldest goes; such a device re-subscribes to its config topics on its next message)'),
    SKULL_FLEET_SHARD: shardSchema.prefault('0/1').describe('Fleet: `i/N` serves only the devices whose id hashes (FNV-1a 32-bit) to i modulo N; run N processes for N shards'),
    SKULL_FLEET_INSTANCE: deviceIdSchema.optional().describe('Fleet: this process\'s name in `<prefix>/_service/<instance>/health` (default: host name, pid)'),
    SKULL_LOG_FILE: z.string().optional().describe('JSON log file of `palabre skull` (the spec\'s /opt/Skull/logs/ai.log)'),
  },
});

export type SkullConfig = ConfigValues<typeof skullConfig>;
