/**
 * The provider registry of the process, built from configuration.
 *
 * - A provider "has credentials" when its key is set; OpenAI also counts as configured when only
 *   `OPENAI_BASE_URL` is set (Ollama, llama.cpp and vLLM need no key); Gemini on Vertex needs a project.
 * - `resolve('auto')` = anthropic, openai, gemini (first configured), else offline. A provider named
 *   explicitly but not configured falls back to offline with one warning: a surface always gets a
 *   working provider and `/healthz` shows which.
 * - SDKs are imported lazily on first use, so a process that never calls Gemini (Skull on a Pi)
 *   never loads its SDK.
 * - Every call is counted in `core/metrics.ts` (calls by outcome, latency, tokens) and failures are
 *   logged with kind/status only: never the key, never the prompt.
 */
import type { LlmConfig } from './llmConfig.js';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import { errorFromUnknown } from './llmErrors.js';
import { createOfflineProvider } from './offline.js';
import type { ProviderRegistry, SurfaceEndpoint } from './registry.js';
import type { GenerateRequest, GenerateResult, LlmProvider, ProviderName } from '../../machines/llmPort.js';

export type ProvidersConfig = Pick<
  LlmConfig,
  | 'OPENAI_API_KEY'
  | 'OPENAI_BASE_URL'
  | 'ANTHROPIC_API_KEY'
  | 'ANTHROPIC_BASE_URL'
  | 'GEMINI_API_KEY'
  | 'GOOGLE_GEMINI_BASE_URL'
  | 'GEMINI_VERTEX'
  | 'GOOGLE_CLOUD_PROJECT'
  | 'GOOGLE_CLOUD_LOCATION'
>;

export interface ProvidersDeps {
  logger: Logger;
  metrics?: Metrics;
}

/** Order of `auto`. */
const AUTO_ORDER: readonly ProviderName[] = ['anthropic', 'openai', 'gemini'];

/** A placeholder key for local OpenAI-compatible servers that ignore it (the SDK insists on one). */
const LOCAL_KEY = 'not-needed';

type Factory = () => Promise<LlmProvider>;

function factories(config: Partial<ProvidersConfig>): Partial<Record<ProviderName, Factory>> {
  const out: Partial<Record<ProviderName, Factory>> = {};
  if (config.ANTHROPIC_API_KEY) {
    const apiKey = config.ANTHROPIC_API_KEY;
    out.anthropic = async () => (await import('./anthropic.js')).createAnthropicProvider({ apiKey, baseURL: config.ANTHROPIC_BASE_URL });
  }
  if (config.OPENAI_API_KEY || config.OPENAI_BASE_URL) {
    const apiKey = config.OPENAI_API_KEY ?? LOCAL_KEY;
    out.openai = async () => (await import('./openai.js')).createOpenAIProvider({ apiKey, baseURL: config.OPENAI_BASE_URL });
  }
  if (config.GEMINI_VERTEX ? Boolean(config.GOOGLE_CLOUD_PROJECT) : Boolean(config.GEMINI_API_KEY)) {
    const vertex = config.GEMINI_VERTEX ? { project: config.GOOGLE_CLOUD_PROJECT, location: config.GOOGLE_CLOUD_LOCATION } : undefined;
    out.gemini = async () =>
      (await import('./gemini.js')).createGeminiProvider({ apiKey: config.GEMINI_API_KEY, baseUrl: config.GOOGLE_GEMINI_BASE_URL, vertex });
  }
  return out;
}

/** The provider-wide settings with one surface's endpoint/key laid over those of `name`. */
export function withEndpoint(config: Partial<ProvidersConfig>, name: ProviderName, endpoint: SurfaceEndpoint): Partial<ProvidersConfig> {
  const out = { ...config };
  if (name === 'openai') {
    if (endpoint.baseURL) out.OPENAI_BASE_URL = endpoint.baseURL;
    if (endpoint.apiKey) out.OPENAI_API_KEY = endpoint.apiKey;
  } else if (name === 'anthropic') {
    if (endpoint.baseURL) out.ANTHROPIC_BASE_URL = endpoint.baseURL;
    if (endpoint.apiKey) out.ANTHROPIC_API_KEY = endpoint.apiKey;
  } else if (name === 'gemini') {
    if (endpoint.baseURL) out.GOOGLE_GEMINI_BASE_URL = endpoint.baseURL;
    if (endpoint.apiKey) out.GEMINI_API_KEY = endpoint.apiKey;
  }
  return out;
}

/** Loads the SDK on the first call, once; a failed load is retried on the next call. */
function lazy(name: ProviderName, factory: Factory): LlmProvider {
  let loading: Promise<LlmProvider> | undefined;
  return {
    name,
    async generate(req) {
      loading ??= factory().catch((err: unknown) => {
        loading = undefined;
        throw err;
      });
      return (await loading).generate(req);
    },
  };
}

/** Counts and logs every call; turns anything thrown into an LlmError. */
function instrument(inner: LlmProvider, deps: ProvidersDeps): LlmProvider {
  const { logger, metrics } = deps;
  const provider = inner.name;
  return {
    name: provider,
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      const purpose = req.purpose ?? 'other';
      try {
        const r = await inner.generate(req);
        if (metrics) {
          metrics.llmCalls.inc({ provider, model: r.model, purpose, outcome: 'ok' });
          metrics.llmLatency.observe({ provider, model: r.model, purpose }, r.usage.latencyMs / 1000);
          metrics.llmTokens.inc({ provider, model: r.model, direction: 'input' }, r.usage.inputTokens);
          metrics.llmTokens.inc({ provider, model: r.model, direction: 'output' }, r.usage.outputTokens);
          if (r.usage.cachedTokens > 0) metrics.llmTokens.inc({ provider, model: r.model, direction: 'cached' }, r.usage.cachedTokens);
          if (r.usage.cacheCreationTokens > 0) metrics.llmTokens.inc({ provider, model: r.model, direction: 'cache_creation' }, r.usage.cacheCreationTokens);
        }
        return r;
      } catch (raw) {
        const err = errorFromUnknown(provider, raw, req.signal);
        metrics?.llmCalls.inc({ provider, model: req.model, purpose, outcome: err.kind === 'aborted' ? 'aborted' : 'error' });
        if (err.kind !== 'aborted') {
          logger.warn({ provider, model: req.model, purpose, kind: err.kind, status: err.status, retryAfterMs: err.retryAfterMs }, `llm call failed: ${err.message}`);
        }
        throw err;
      }
    },
  };
}

export function createProviders(config: Partial<ProvidersConfig>, deps: ProvidersDeps): ProviderRegistry {
  const built = new Map<ProviderName, LlmProvider>();
  for (const [name, factory] of Object.entries(factories(config)) as Array<[ProviderName, Factory]>) {
    built.set(name, instrument(lazy(name, factory), deps));
  }
  built.set('offline', instrument(createOfflineProvider(), deps));
  const warned = new Set<string>();

  const offline = built.get('offline') as LlmProvider;
  // Surface clients, keyed by provider + endpoint + key (the key never leaves this map).
  const perSurface = new Map<string, LlmProvider>();
  return {
    forSurface(setting, endpoint) {
      // A surface endpoint with `auto` is an OpenAI-compatible server (DeepSeek, Ollama, vLLM…).
      const name: ProviderName = setting === 'auto' ? 'openai' : setting;
      if (name === 'offline') return offline;
      const id = JSON.stringify([name, endpoint.baseURL ?? '', endpoint.apiKey ?? '']);
      const hit = perSurface.get(id);
      if (hit) return hit;
      const factory = factories(withEndpoint(config, name, endpoint))[name];
      if (!factory) {
        if (!warned.has(id)) {
          warned.add(id);
          deps.logger.warn({ provider: name }, `provider ${name} has no key for this surface: using the offline provider`);
        }
        return offline;
      }
      const p = instrument(lazy(name, factory), deps);
      perSurface.set(id, p);
      return p;
    },
    get: (name) => built.get(name),
    available: () => [...AUTO_ORDER.filter((n) => built.has(n)), 'offline'],
    resolve(setting) {
      if (setting === 'auto') {
        for (const n of AUTO_ORDER) {
          const p = built.get(n);
          if (p) return p;
        }
        return offline;
      }
      const p = built.get(setting);
      if (p) return p;
      if (!warned.has(setting)) {
        warned.add(setting);
        deps.logger.warn({ provider: setting }, `provider ${setting} is not configured (no key): using the offline provider`);
      }
      return offline;
    },
  };
}
