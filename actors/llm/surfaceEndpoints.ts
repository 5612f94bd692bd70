/**
 * One endpoint and key per surface. `SKULL_BASE_URL`/`SKULL_API_KEY`, `CHAT_…`, `CORRECTION_…` and
 * `T2_TEXT_…` override the provider-wide `OPENAI_…`/`ANTHROPIC_…`/`GEMINI_…` settings for that
 * surface only, so corrections on DeepSeek and Skull on OpenAI run side by side (the specs want
 * exactly that). Without an override a surface shares the process-wide provider.
 */
import type { SkullConfig } from '../skull/skullConfig.js';
import type { DocsConfig } from '../docs/docsConfig.js';
import type { CorrectionsConfig } from '../corrections/correctionsConfig.js';
import type { T2Config } from '../t2/t2Config.js';
import type { ProviderRegistry, SurfaceEndpoint } from './registry.js';
import type { LlmProvider, ProviderName } from '../../machines/llmPort.js';

export type LlmSurface = 'skull' | 'docs' | 'corrections' | 't2text';

interface SurfaceKeys {
  provider: 'SKULL_PROVIDER' | 'CHAT_PROVIDER' | 'CORRECTION_PROVIDER' | 'T2_TEXT_PROVIDER';
  baseUrl: 'SKULL_BASE_URL' | 'CHAT_BASE_URL' | 'CORRECTION_BASE_URL' | 'T2_TEXT_BASE_URL';
  apiKey: 'SKULL_API_KEY' | 'CHAT_API_KEY' | 'CORRECTION_API_KEY' | 'T2_TEXT_API_KEY';
}

/** The configuration variables of each surface (also named in warnings: "set SKULL_BASE_URL…"). */
const SURFACE_KEYS: Readonly<Record<LlmSurface, SurfaceKeys>> = {
  skull: { provider: 'SKULL_PROVIDER', baseUrl: 'SKULL_BASE_URL', apiKey: 'SKULL_API_KEY' },
  docs: { provider: 'CHAT_PROVIDER', baseUrl: 'CHAT_BASE_URL', apiKey: 'CHAT_API_KEY' },
  corrections: { provider: 'CORRECTION_PROVIDER', baseUrl: 'CORRECTION_BASE_URL', apiKey: 'CORRECTION_API_KEY' },
  t2text: { provider: 'T2_TEXT_PROVIDER', baseUrl: 'T2_TEXT_BASE_URL', apiKey: 'T2_TEXT_API_KEY' },
};

export type SurfaceConfig = Partial<Pick<SkullConfig & DocsConfig & CorrectionsConfig & T2Config, SurfaceKeys['provider'] | SurfaceKeys['baseUrl'] | SurfaceKeys['apiKey']>>;

/** The surface's own endpoint and key, when set (both may be absent). */
export function surfaceEndpoint(config: SurfaceConfig, surface: LlmSurface): SurfaceEndpoint {
  const keys = SURFACE_KEYS[surface];
  const baseURL = config[keys.baseUrl];
  const apiKey = config[keys.apiKey];
  return { ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}) };
}

export function hasOverride(endpoint: SurfaceEndpoint): boolean {
  return Boolean(endpoint.baseURL || endpoint.apiKey);
}

/** The provider setting of a surface (`auto` when unset). */
export function surfaceSetting(config: SurfaceConfig, surface: LlmSurface): ProviderName | 'auto' {
  return config[SURFACE_KEYS[surface].provider] ?? 'auto';
}

/**
 * The provider a surface calls: its own endpoint/key when set, else the shared one its setting
 * resolves to. A registry without `forSurface` (hand-made in tests) ignores overrides.
 */
export function surfaceProvider(registry: ProviderRegistry, config: SurfaceConfig, surface: LlmSurface, setting = surfaceSetting(config, surface)): LlmProvider {
  const endpoint = surfaceEndpoint(config, surface);
  if (!hasOverride(endpoint) || !registry.forSurface) return registry.resolve(setting);
  return registry.forSurface(setting, endpoint);
}
