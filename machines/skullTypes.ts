/**
 * Types shared by the skull chart, its actors and the MQTT transport. Payload shapes are those of
 * docs/skull.md#topics; the zod schemas that validate them live in transports/mqtt/skullSchemas.ts.
 */

/** `skull/config/ia` (retained), after validation. Every field optional: absent = env default. */
export interface IaConfig {
  model?: string;
  lang?: string;
  eos_ms?: number;
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
}

/** Settings from the environment (actors/skull/skullConfig.ts + actors/llm/llmConfig.ts). */
export interface SkullSettings {
  model: string;
  fallbackModel: string;
  /** All models the device may pick (ai/capabilities). */
  models: string[];
  lang: string;
  maxTokens: number;
  /** Largest max_tokens a device may ask for (ai/capabilities); retained values are clamped to it. */
  maxTokensCap: number;
  temperature: number;
  topP: number;
  /** Per-attempt timeout of the primary model, ms (AI_TIMEOUT_S). */
  timeoutMs: number;
  /** Per-attempt timeout of the fallback model, ms (AI_FALLBACK_TIMEOUT_S). */
  fallbackTimeoutMs: number;
  maxRetries: number;
  backoffBaseMs: number;
  retryAfterCapMs: number;
  debounceMs: number;
  /** ai/request jobs in flight (the one running + queued). */
  maxInFlight: number;
  maxSentences: number;
  /** Longest wait for the broker's PUBACK of a reply, ms. */
  publishTimeoutMs: number;
  /** Total token budget of one turn; 30 % of it is reserved for the output. */
  tokenBudget: number;
  breaker: { failureThreshold: number; windowMs: number; cooldownMs: number };
}

interface ResponsePayload {
  ts_ms: number;
  text: string;
}

interface UsagePayload {
  ts_ms: number;
  latency_ms: number;
  input_tokens: number;
  output_tokens: number;
  model: string;
  cached: boolean;
}

/** What the chart's `publishReply` publishes: the response, then its usage when a model produced it. */
export interface Outgoing {
  response: ResponsePayload;
  usage?: UsagePayload;
  /** The device it answers: a fleet's one publish routes to `<prefix>/<deviceId>/ai/…` by it. */
  deviceId?: string;
}

type JobSource = 'asr' | 'request';

export interface Job {
  source: JobSource;
  text: string;
  /** Clock time the input was accepted (ms). */
  at: number;
}

/** What a reply was: drives the counters and whether the turn enters the history. */
export type ReplyKind = 'model' | 'redirect' | 'apology' | 'interrupted';

export interface SkullStats {
  responses: number;
  /** ai/request dropped because `maxInFlight` jobs were in flight. */
  dropped: number;
  /** asr/text ignored because a generation was running (busy). */
  busyIgnored: number;
  /** asr/text identical to the previous one within the debounce window. */
  duplicates: number;
  redirected: number;
  cancelled: number;
  apologies: number;
  fallbacks: number;
  publishErrors: number;
}

export const APOLOGY_TEXT = 'Désolé, je n’ai pas compris. Reformule s’il te plaît.';
export const INTERRUPTED_TEXT = '(interrompu)';
