import { z } from 'zod';
import { ms, positiveInt } from './shared.js';

/** Skull device assistant (docs/skull.md#configuration). Owned by the Skull surface. */
export const skullSection = {
  AI_MODEL: z.string().default('gpt-5-mini').describe('Skull primary model'),
  AI_FALLBACK_MODEL: z.string().default('gpt-5-nano').describe('Model used while the breaker is open'),
  AI_TIMEOUT_S: z.coerce.number().positive().default(12).describe('Per-attempt timeout of the primary model, seconds'),
  AI_FALLBACK_TIMEOUT_S: z.coerce.number().positive().default(6).describe('Per-attempt timeout of the fallback model, seconds (the spec: 6 s nano, 12 s mini)'),
  AI_MAX_TOKENS: positiveInt.default(256).describe('Output token limit'),
  AI_TEMPERATURE: z.coerce.number().min(0).max(2).default(0.7).describe('Sent only to models that accept it'),
  AI_TOP_P: z.coerce.number().min(0).max(1).default(0.9).describe('Sent only to models that accept it'),
  AI_LANG: z.string().default('fr').describe('Reply language'),
  SKULL_PROVIDER: z.enum(['auto', 'openai', 'anthropic', 'gemini', 'offline']).default('auto').describe('Provider for Skull'),
  SKULL_PROMPT_FILE: z.string().default('prompts/skull/prompt.txt').describe('Default system prompt file (the spec\'s /opt/Skull/config/prompt.txt)'),
  SKULL_TOPIC_PREFIX: z.string().regex(/^[^#+]*$/, 'no MQTT wildcards').default('').describe('Optional topic prefix for fleets (`<prefix>/asr/text`)'),
  SKULL_DEVICE_ID: z.string().default('skull').describe('Device id (MQTT client id and actor systemId)'),
  SKULL_DEBOUNCE_MS: ms.default(300).describe('Identical ASR text within this window → one generation'),
  SKULL_MAX_IN_FLIGHT: positiveInt.default(3).describe('ai/request queue bound'),
  SKULL_HEALTH_INTERVAL_MS: ms.default(2000).describe('ai/health period'),
  SKULL_MAX_SENTENCES: positiveInt.max(10).default(3).describe('Longest reply, in sentences'),
  SKULL_MAX_TOKENS_CAP: positiveInt.default(512).describe('Largest max_tokens a device may ask (ai/capabilities); it is the 30 % of the turn budget kept for output'),
  SKULL_PUBLISH_TIMEOUT_MS: ms.default(10000).describe('Longest wait for the broker to acknowledge a reply (QoS 1) before the turn ends'),
  SKULL_LOG_FILE: z.string().optional().describe('JSON log file of `palabre skull` (the spec\'s /opt/Skull/logs/ai.log)'),
};
