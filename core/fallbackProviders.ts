import type { ProviderRegistry } from '../actors/llm/registry.js';
import type { GenerateRequest, GenerateResult, LlmProvider } from '../actors/llm/types.js';

/**
 * A registry with the offline provider only: deterministic, no network. Used when the real
 * registry (`actors/llm/providers.ts`) is not part of the build.
 */
export function fallbackProviders(): ProviderRegistry {
  const offline: LlmProvider = {
    name: 'offline',
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      const last = req.messages.at(-1)?.content ?? '';
      const text = `(offline) ${last.slice(0, 200)}`;
      return {
        text,
        model: 'offline',
        provider: 'offline',
        usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 0 },
      };
    },
  };
  return {
    get: (name) => (name === 'offline' ? offline : undefined),
    resolve: () => offline,
    available: () => ['offline'],
  };
}
