import type { ProcessServices } from '../../core/app.js';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import { watchModels, type ModelCheckConfig, type ModelStatus, type ModelWatch } from './modelStatus.js';
import { createProviders } from './providers.js';
import type { ProviderRegistry } from './registry.js';
import { hasOverride, surfaceEndpoint, surfaceProvider, surfaceSetting, type LlmSurface } from './surfaceEndpoints.js';
import type { ProviderName } from '../../machines/llmPort.js';

// Every surface's context carries the providers (core passes them through without knowing them).
declare module '../../core/surfaceContract.js' {
  interface AppServices {
    providers: ProviderRegistry;
    /** The latest model check; absent when nothing checks (hand-built contexts). */
    modelStatus?: () => readonly ModelStatus[];
  }
}

/** The provider each surface resolves to, by its setting (surface setting, else LLM_PROVIDER). */
export function providersPerSurface(ctx: { config: ModelCheckConfig; providers: ProviderRegistry }): Record<string, ProviderName> {
  const { config, providers } = ctx;
  // A surface with its own endpoint/key (SKULL_BASE_URL…) uses its own client.
  const pick = (surface: LlmSurface): ProviderName => {
    const setting = surfaceSetting(config, surface);
    if (hasOverride(surfaceEndpoint(config, surface))) return surfaceProvider(providers, config, surface).name;
    return providers.resolve(setting === 'auto' ? config.LLM_PROVIDER : setting).name;
  };
  return {
    skull: pick('skull'),
    docs: pick('docs'),
    corrections: pick('corrections'),
    // The live interlocutor is Gemini Live; without a Gemini key T2 falls back to its text mode.
    t2: providers.available().includes('gemini') ? 'gemini' : pick('t2text'),
  };
}

export interface LlmServices extends ProcessServices {
  providers: ProviderRegistry;
  /** The background model check (/healthz `models`); its first result is `models.firstCheck`. */
  models: ModelWatch;
}

/**
 * The LLM providers of the process (SDKs load on a provider's first call: building costs nothing)
 * and the background check of the models they list, started once the process serves.
 */
export function llmServices(core: { config: ModelCheckConfig; logger: Logger; metrics: Metrics }): LlmServices {
  const { config, logger, metrics } = core;
  const providers = createProviders(config, { logger, metrics });
  const models = watchModels(config, { logger, providers });
  return {
    providers,
    models,
    context: { providers, modelStatus: () => models.current() },
    health() {
      const perSurface = providersPerSurface({ config, providers });
      const offline = Object.entries(perSurface).filter(([, p]) => p === 'offline').map(([s]) => s);
      return {
        providers: perSurface,
        offline: offline.length === 0
          ? 'no surface uses the offline provider'
          : `offline provider (deterministic, no network) for: ${offline.join(', ')}${providers.available().length <= 1 ? ' — no API key is set' : ''}`,
        models: models.current(),
      };
    },
    start: () => models.start(),
    stop: () => models.stop(),
  };
}
