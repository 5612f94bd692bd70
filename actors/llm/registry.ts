import type { LlmProvider, ProviderName } from './types.js';

/**
 * The providers this process can use, built from configuration (see `createProviders`).
 * `resolve('auto')` picks the first provider with a key (anthropic, openai, gemini) or offline.
 */
export interface ProviderRegistry {
  get(name: ProviderName): LlmProvider | undefined;
  /** The provider a surface should use given its setting (`auto` or a name); never undefined. */
  resolve(setting: ProviderName | 'auto'): LlmProvider;
  /** Names of the providers that have credentials (offline is always there). */
  available(): ProviderName[];
}
