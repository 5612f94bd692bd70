import type { LlmConfig } from '../llm/llmConfig.js';
import type { SkullConfig } from './skullConfig.js';
import type { SkullSettings } from '../../machines/skullTypes.js';

/** Output share of the turn budget (the spec's "réserve 30 % pour sortie"). */
const OUTPUT_SHARE = 0.3;

/**
 * The Skull settings from the process configuration. The turn's total token budget is derived
 * from the output cap: the cap is the 30 % reserved for the output, so the prompt gets the other
 * 70 % (512 → 1707 in all, 1194 for the prompt).
 */
export function skullSettings(config: SkullConfig & LlmConfig): SkullSettings {
  const models = [...new Set([config.AI_MODEL, config.AI_FALLBACK_MODEL])];
  return {
    model: config.AI_MODEL,
    fallbackModel: config.AI_FALLBACK_MODEL,
    models,
    lang: config.AI_LANG,
    maxTokens: Math.min(config.AI_MAX_TOKENS, config.SKULL_MAX_TOKENS_CAP),
    maxTokensCap: config.SKULL_MAX_TOKENS_CAP,
    temperature: config.AI_TEMPERATURE,
    topP: config.AI_TOP_P,
    timeoutMs: Math.round(config.AI_TIMEOUT_S * 1000),
    fallbackTimeoutMs: Math.round(config.AI_FALLBACK_TIMEOUT_S * 1000),
    maxRetries: config.LLM_MAX_RETRIES,
    backoffBaseMs: config.LLM_BACKOFF_BASE_MS,
    retryAfterCapMs: config.LLM_RETRY_AFTER_CAP_MS,
    debounceMs: config.SKULL_DEBOUNCE_MS,
    maxInFlight: config.SKULL_MAX_IN_FLIGHT,
    maxSentences: config.SKULL_MAX_SENTENCES,
    publishTimeoutMs: config.SKULL_PUBLISH_TIMEOUT_MS,
    tokenBudget: Math.ceil(config.SKULL_MAX_TOKENS_CAP / OUTPUT_SHARE),
    breaker: { failureThreshold: config.BREAKER_FAILURES, windowMs: config.BREAKER_WINDOW_MS, cooldownMs: config.BREAKER_COOLDOWN_MS },
  };
}
