import type { LlmProvider, ProviderName } from '../../machines/llmPort.js';

/**
 * The providers this process can use, built from configuration (see `createProviders`).
 * `resolve('auto')` picks the first provider with a key (anthropic, openai, gemini) or offline.
 */
/** A surface's own endpoint and key (SKULL_BASE_URL/SKULL_API_KEY…), overriding the provider-wide ones. */
export interface SurfaceEndpoint {
  baseURL?: string;
  apiKey?: string;
}

export interface ProviderRegistry {
  get(name: ProviderName): LlmProvider | undefined;
  /** The provider a surface should use given its setting (`auto` or a name); never undefined. */
  resolve(setting: ProviderName | 'auto'): LlmProvider;
  /** Names of the providers that have credentials (offline is always there). */
  available(): ProviderName[];
  /**
   * The provider for a surface that has its own endpoint and/or key: `setting` names the API
   * (`auto` = OpenAI-compatible, the common case: DeepSeek, Ollama, vLLM); the surface's values
   * override the provider-wide ones. One client per distinct endpoint+key, built on first use.
   */
  forSurface?(setting: ProviderName | 'auto', endpoint: SurfaceEndpoint): LlmProvider;
}
