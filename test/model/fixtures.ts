import { LlmError, type GenerateResult, type LlmProvider } from '../../machines/llmPort.js';
import type { LlmCallInput } from '../../machines/llmCall.js';

/** Shared data of the llmCall / breaker model and direct tests. */
export const request: LlmCallInput['request'] = { model: 'primary-model', messages: [{ role: 'user', content: 'Bonjour' }], purpose: 'test' };

export function result(model = 'primary-model', text = 'Salut !'): GenerateResult {
  return { text, model, provider: 'openai', usage: { inputTokens: 3, outputTokens: 2, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 5 } };
}

export const errors = {
  server: () => new LlmError('server', 'HTTP 503 from the provider', { provider: 'openai', status: 503 }),
  rateLimited: (retryAfterMs = 1500) => new LlmError('rate_limited', 'HTTP 429', { provider: 'openai', status: 429, retryAfterMs }),
  badRequest: () => new LlmError('bad_request', 'HTTP 400: unsupported parameter', { provider: 'openai', status: 400 }),
};

/** A provider that must never be called (the harness replaces `generate`). */
export const unusedProvider: LlmProvider = {
  name: 'offline',
  generate: () => Promise.reject(new Error('the harness should have replaced the generate actor')),
};
