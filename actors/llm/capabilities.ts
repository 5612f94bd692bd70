/**
 * What each model accepts, by model id pattern, so that an adapter never sends a parameter the
 * model rejects (GPT-5 family and o-series answer HTTP 400 to `temperature` ≠ 1 and `top_p`).
 *
 * The first matching row wins; rows registered at run time (`registerModelCapabilities`) are tried
 * before the built-in ones, so a deployment can describe a new model without a code change here.
 */
import type { ProviderName } from '../../machines/llmPort.js';

export interface ModelCapabilities {
  /** OpenAI-compatible name of the output limit: reasoning models count hidden tokens against `max_completion_tokens`. */
  limitField: 'max_tokens' | 'max_completion_tokens';
  temperature: boolean;
  topP: boolean;
  /** Accepts `reasoning_effort` (OpenAI reasoning models). */
  reasoningEffort: boolean;
  /**
   * What to send when the caller asks for `minimal` effort (the low-latency setting): GPT-5 takes
   * `minimal`, GPT-5.1 and later call it `none`, the o-series' lowest is `low`.
   */
  minimalEffort: 'minimal' | 'none' | 'low';
  /** Accepts OpenAI `response_format: {type: 'json_object'}`. */
  jsonMode: boolean;
}

export interface CapabilityRow {
  /** Restrict the row to one provider; omitted = any provider. */
  provider?: ProviderName;
  pattern: RegExp;
  caps: Partial<ModelCapabilities>;
  /** Why the row exists (shown in docs/providers.md). */
  note: string;
}

const DEFAULTS: ModelCapabilities = {
  limitField: 'max_tokens',
  temperature: true,
  topP: true,
  reasoningEffort: false,
  minimalEffort: 'low',
  jsonMode: true,
};

const REASONING: Partial<ModelCapabilities> = {
  limitField: 'max_completion_tokens',
  temperature: false,
  topP: false,
  reasoningEffort: true,
};

/** Built-in rows, most specific first. Keep in step with the table in docs/providers.md. */
export const BUILTIN_CAPABILITIES: readonly CapabilityRow[] = [
  {
    pattern: /^(?:openai\/)?gpt-5(?:\.\d+)?-chat/i,
    caps: { limitField: 'max_completion_tokens' },
    note: 'GPT-5 chat variants: not reasoning models, sampling knobs accepted',
  },
  {
    pattern: /^(?:openai\/)?gpt-6/i,
    caps: { ...REASONING, minimalEffort: 'none' },
    note: 'GPT-6 family (gpt-6-luna, gpt-6.1-terra…): reasoning models like GPT-5.1+; the low-latency effort is `none`',
  },
  {
    pattern: /^(?:openai\/)?gpt-5\.\d/i,
    caps: { ...REASONING, minimalEffort: 'none' },
    note: 'GPT-5.1 and later: as GPT-5; the low-latency effort is `none`',
  },
  {
    pattern: /^(?:openai\/)?gpt-5/i,
    caps: { ...REASONING, minimalEffort: 'minimal' },
    note: 'GPT-5 family: reasoning model; no temperature/top_p; max_completion_tokens; reasoning_effort incl. minimal',
  },
  {
    pattern: /^(?:openai\/)?o\d(?:$|[-.])/i,
    caps: { ...REASONING, minimalEffort: 'low' },
    note: 'o-series (o1, o3, o4-mini…): reasoning model; no temperature/top_p; max_completion_tokens; lowest effort `low`',
  },
  {
    pattern: /^deepseek-reasoner/i,
    caps: { temperature: false, topP: false, jsonMode: false },
    note: 'DeepSeek reasoner ignores sampling knobs and has no JSON mode',
  },
  {
    provider: 'anthropic',
    pattern: /./,
    caps: { temperature: false, topP: false, jsonMode: false },
    note: 'Anthropic API 2026-10-21 (sent by @anthropic-ai/sdk ≥ 1.0) answers 400 to temperature/top_p/top_k, even at defaults',
  },
];

const custom: CapabilityRow[] = [];

/** Adds a row tried before the built-in ones (first match wins). */
export function registerModelCapabilities(row: CapabilityRow): void {
  custom.unshift(row);
}

/** Forget rows added with registerModelCapabilities (tests). */
export function resetModelCapabilities(): void {
  custom.length = 0;
}

const cache = new Map<string, ModelCapabilities>();

export function capabilitiesFor(provider: ProviderName, model: string): ModelCapabilities {
  const key = `${provider}\u0000${model}`;
  const hit = custom.length === 0 ? cache.get(key) : undefined;
  if (hit) return hit;
  const row = [...custom, ...BUILTIN_CAPABILITIES].find((r) => (r.provider === undefined || r.provider === provider) && r.pattern.test(model));
  const caps = { ...DEFAULTS, ...row?.caps };
  if (custom.length === 0) cache.set(key, caps);
  return caps;
}
