/**
 * Which configured model ids the providers still offer. For every surface with a real provider the
 * provider's own models list is read through its official SDK — OpenAI `GET /models` (entries may
 * carry `shutdown_date`), Anthropic's models list (`lifecycle`, `retires_at`), Gemini's models list —
 * and each configured id is classed:
 *
 * - `ok`: listed, no retirement announced;
 * - `deprecated`: listed with a shutdown date (given in `shutdownDate`);
 * - `missing`: not listed (or retired): calls to it will fail;
 * - `unchecked`: offline provider, or the list could not be read (`detail` says why).
 *
 * `checkModels` never throws and never fails a start: a list that cannot be fetched is `unchecked`.
 * `palabre serve` runs it in the background (`watchModels`), shows it in /healthz, logs one `warn`
 * per deprecated or missing model and checks again every 24 h; `palabre doctor` can call
 * `checkModels` directly.
 */
import type { CoreConfig } from '../../core/config/schema.js';
import type { SkullConfig } from '../skull/skullConfig.js';
import type { DocsConfig } from '../docs/docsConfig.js';
import type { CorrectionsConfig } from '../corrections/correctionsConfig.js';
import type { T2Config } from '../t2/t2Config.js';
import type { LlmConfig } from './llmConfig.js';
import type { Logger } from '../../core/log.js';
import { liveModelFor } from './liveModel.js';
import { createProviders, withEndpoint } from './providers.js';
import type { ProviderRegistry, SurfaceEndpoint } from './registry.js';
import { surfaceEndpoint, surfaceProvider, type LlmSurface } from './surfaceEndpoints.js';
import type { ProviderName } from '../../machines/llmPort.js';

type ModelState = 'ok' | 'deprecated' | 'missing' | 'unchecked';

export interface ModelStatus {
  /** skull, docs, corrections, t2, embeddings. */
  surface: string;
  provider: ProviderName;
  model: string;
  /** The configuration variable that sets this model (what to change). */
  variable: string;
  status: ModelState;
  /** YYYY-MM-DD, when the provider announced one. */
  shutdownDate?: string;
  /** Why a model is `unchecked` or `missing`. Never contains a key. */
  detail?: string;
}

/** One model a surface will call, and where. */
interface ModelTarget {
  surface: string;
  provider: ProviderName;
  model: string;
  variable: string;
  endpoint: SurfaceEndpoint;
}

/** One entry of a provider's models list, normalised. */
interface CatalogEntry {
  id: string;
  shutdownDate?: string;
  /** Anthropic `lifecycle: deprecated` (a retirement is scheduled, maybe without a date yet). */
  deprecated?: boolean;
  /** Anthropic `lifecycle: retired`: listed for the record, calls fail. */
  retired?: boolean;
}

/** What the model check reads: the providers' keys, and every surface's model and provider settings. */
export type ModelCheckConfig = Pick<CoreConfig, 'SURFACES'> & LlmConfig & SkullConfig & DocsConfig & CorrectionsConfig & T2Config;

/** Reads one provider's models list (the SDK-backed default, or a stand-in in unit tests). */
export type ListModels = (provider: Exclude<ProviderName, 'offline'>, config: Partial<LlmConfig>, signal: AbortSignal) => Promise<CatalogEntry[]>;

export interface CheckModelsDeps {
  /** The process's registry (to know which provider each surface resolves to); default: built from config. */
  providers?: ProviderRegistry;
  logger?: Logger;
  listModels?: ListModels;
  /** Limit of one list request (default 10 s). */
  timeoutMs?: number;
  /** Aborts the list requests in flight (shutdown). */
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const GEMINI_EMBEDDING_DEFAULT = 'gemini-embedding-001';

function surfacesWanted(config: Pick<CoreConfig, 'SURFACES'>): (name: string) => boolean {
  const s = config.SURFACES.trim();
  if (s === 'all') return () => true;
  const names = new Set(s === 'none' ? [] : s.split(',').map((n) => n.trim()));
  return (name) => names.has(name);
}

/** The models each started surface will call, with the provider and endpoint it calls them on. */
function modelTargets(config: ModelCheckConfig, providers: ProviderRegistry): ModelTarget[] {
  const wanted = surfacesWanted(config);
  const out: ModelTarget[] = [];
  const add = (surface: string, llm: LlmSurface | undefined, provider: ProviderName, model: string, variable: string) => {
    out.push({ surface, provider, model, variable, endpoint: llm ? surfaceEndpoint(config, llm) : {} });
  };
  if (wanted('skull')) {
    const p = surfaceProvider(providers, config, 'skull').name;
    add('skull', 'skull', p, config.AI_MODEL, 'AI_MODEL');
    if (config.AI_FALLBACK_MODEL !== config.AI_MODEL) add('skull', 'skull', p, config.AI_FALLBACK_MODEL, 'AI_FALLBACK_MODEL');
  }
  if (wanted('docs')) {
    const docsProvider = surfaceProvider(providers, config, 'docs').name;
    add('docs', 'docs', docsProvider, config.CHAT_MODEL, 'CHAT_MODEL');
    // The relevance call of the "ask" band (empty = CHAT_MODEL, already checked).
    if (config.CHAT_RELEVANCE_MODEL && config.CHAT_RELEVANCE_MODEL !== config.CHAT_MODEL) add('docs', 'docs', docsProvider, config.CHAT_RELEVANCE_MODEL, 'CHAT_RELEVANCE_MODEL');
    if (config.EMBEDDINGS_PROVIDER !== 'none') {
      const gemini = config.EMBEDDINGS_PROVIDER === 'gemini';
      // Same rule as the docs assistant: the OpenAI default means gemini-embedding-001 on Gemini.
      const model = gemini && config.EMBEDDINGS_MODEL.startsWith('text-embedding-3') ? GEMINI_EMBEDDING_DEFAULT : config.EMBEDDINGS_MODEL;
      add('embeddings', undefined, config.EMBEDDINGS_PROVIDER, model, 'EMBEDDINGS_MODEL');
    }
  }
  if (wanted('corrections')) add('corrections', 'corrections', surfaceProvider(providers, config, 'corrections').name, config.CORRECTION_MODEL, 'CORRECTION_MODEL');
  if (wanted('t2')) {
    if (providers.available().includes('gemini')) add('t2', undefined, 'gemini', liveModelFor(config), 'T2_LIVE_MODEL');
    const text = surfaceProvider(providers, config, 't2text').name;
    if (text !== 'offline') add('t2', 't2text', text, config.T2_TEXT_MODEL, 'T2_TEXT_MODEL');
  }
  return out;
}

function dateOnly(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value) return undefined;
  const m = /^\d{4}-\d{2}-\d{2}/.exec(value);
  return m ? m[0] : undefined;
}

/** The official SDKs' list calls, loaded lazily (a Skull on a Pi never loads the Gemini SDK). */
const sdkListModels: ListModels = async (provider, config, signal) => {
  const timeout = DEFAULT_TIMEOUT_MS;
  if (provider === 'openai') {
    const { default: OpenAI } = await import('openai');
    const client = new OpenAI({ apiKey: config.OPENAI_API_KEY ?? 'not-needed', baseURL: config.OPENAI_BASE_URL, maxRetries: 0, timeout });
    const out: CatalogEntry[] = [];
    for await (const m of client.models.list({ signal })) {
      // `shutdown_date` is in the API (deprecations page) but not yet in the SDK's Model type.
      const shutdownDate = dateOnly((m as unknown as Record<string, unknown>).shutdown_date);
      out.push({ id: m.id, ...(shutdownDate ? { shutdownDate } : {}) });
    }
    return out;
  }
  if (provider === 'anthropic') {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const client = new Anthropic({ apiKey: config.ANTHROPIC_API_KEY ?? null, baseURL: config.ANTHROPIC_BASE_URL ?? null, maxRetries: 0, timeout });
    const out: CatalogEntry[] = [];
    for await (const m of client.models.list({ limit: 1000 }, { signal })) {
      const shutdownDate = dateOnly(m.retires_at);
      out.push({ id: m.id, ...(shutdownDate ? { shutdownDate } : {}), deprecated: m.lifecycle === 'deprecated', retired: m.lifecycle === 'retired' });
    }
    return out;
  }
  if (config.GEMINI_VERTEX) throw new Error('the Vertex AI model catalog is not read (only the Gemini Developer API list is)');
  const { GoogleGenAI } = await import('@google/genai');
  const ai = new GoogleGenAI({
    apiKey: config.GEMINI_API_KEY,
    httpOptions: { apiVersion: 'v1beta', timeout, ...(config.GOOGLE_GEMINI_BASE_URL ? { baseUrl: config.GOOGLE_GEMINI_BASE_URL } : {}) },
  });
  const out: CatalogEntry[] = [];
  const pager = await ai.models.list({ config: { pageSize: 1000, abortSignal: signal } });
  for await (const m of pager) {
    // Names are `models/<id>` (Developer API).
    if (m.name) out.push({ id: m.name.replace(/^.*models\//, '') });
  }
  return out;
};

function errorText(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.length > 200 ? `${msg.slice(0, 200)}…` : msg;
}

function classify(target: ModelTarget, catalog: CatalogEntry[]): ModelStatus {
  const base = { surface: target.surface, provider: target.provider, model: target.model, variable: target.variable };
  const entry = catalog.find((e) => e.id === target.model);
  if (!entry) return { ...base, status: 'missing', detail: `${target.provider} does not list ${target.model}` };
  if (entry.retired) return { ...base, status: 'missing', detail: `${target.provider} lists ${target.model} as retired`, ...(entry.shutdownDate ? { shutdownDate: entry.shutdownDate } : {}) };
  if (entry.shutdownDate) return { ...base, status: 'deprecated', shutdownDate: entry.shutdownDate };
  if (entry.deprecated) return { ...base, status: 'deprecated', detail: 'deprecated, no shutdown date announced yet' };
  return { ...base, status: 'ok' };
}

/**
 * Asks each provider (once per distinct endpoint and key) which models it offers and classes every
 * configured model. Never throws.
 */
export async function checkModels(config: ModelCheckConfig, deps: CheckModelsDeps = {}): Promise<ModelStatus[]> {
  const providers = deps.providers ?? createProviders(config, { logger: deps.logger ?? silentLogger() });
  const list = deps.listModels ?? sdkListModels;
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const catalogs = new Map<string, Promise<CatalogEntry[]>>();
  const targets = modelTargets(config, providers);
  return Promise.all(
    targets.map(async (t): Promise<ModelStatus> => {
      const base = { surface: t.surface, provider: t.provider, model: t.model, variable: t.variable };
      if (t.provider === 'offline') return { ...base, status: 'unchecked', detail: 'offline provider (no network): nothing to check' };
      const provider = t.provider;
      const key = JSON.stringify([provider, t.endpoint.baseURL ?? '', t.endpoint.apiKey ?? '']);
      let catalog = catalogs.get(key);
      if (!catalog) {
        const limit = AbortSignal.timeout(timeoutMs);
        catalog = list(provider, withEndpoint(config, provider, t.endpoint), deps.signal ? AbortSignal.any([deps.signal, limit]) : limit);
        catalogs.set(key, catalog);
      }
      try {
        return classify(t, await catalog);
      } catch (err) {
        return { ...base, status: 'unchecked', detail: `could not list ${provider} models: ${errorText(err)}` };
      }
    }),
  );
}

function silentLogger(): Logger {
  const noop = () => undefined;
  const l = { warn: noop, info: noop, error: noop, debug: noop, trace: noop, fatal: noop, child: () => l } as unknown as Logger;
  return l;
}

/** One line per deprecated or missing model: the date and the variable to change. */
export function modelProblemLines(statuses: readonly ModelStatus[]): string[] {
  const lines: string[] = [];
  for (const s of statuses) {
    if (s.status === 'deprecated') {
      lines.push(`model ${s.model} (${s.surface}, ${s.provider}) ${s.shutdownDate ? `shuts down on ${s.shutdownDate}` : 'is deprecated'}: set ${s.variable} to a current model (docs/providers.md)`);
    } else if (s.status === 'missing') {
      lines.push(`model ${s.model} (${s.surface}) is not offered by ${s.provider}${s.detail ? ` (${s.detail})` : ''}: set ${s.variable} to a model it lists (docs/providers.md)`);
    }
  }
  return lines;
}

/**
 * Where Skull's calls to a `missing` primary should go: the fallback, when the provider lists it
 * (ok or deprecated). Undefined while the primary is fine, unchecked, or no fallback is usable.
 */
export function skullPrimaryRoute(statuses: readonly ModelStatus[], primary: string, fallback: string): string | undefined {
  const of = (model: string) => statuses.find((s) => s.surface === 'skull' && s.model === model);
  if (primary === fallback || of(primary)?.status !== 'missing') return undefined;
  const fb = of(fallback)?.status;
  return fb === 'ok' || fb === 'deprecated' ? fallback : undefined;
}

export interface ModelWatch {
  /** The latest statuses (`unchecked` with "check pending" until the first check ends). */
  current(): ModelStatus[];
  /** Runs the first check now (in the background) and every `intervalMs` after; idempotent. */
  start(): void;
  /** Resolves with the first check's result. */
  readonly firstCheck: Promise<ModelStatus[]>;
  /** Checks now and returns the result (also updates `current`). */
  recheck(): Promise<ModelStatus[]>;
  stop(): void;
}

export interface WatchModelsDeps extends CheckModelsDeps {
  logger: Logger;
  /** Period of the re-check (default 24 h). */
  intervalMs?: number;
}

export const RECHECK_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** The background check of `palabre serve`: logs one `warn` per deprecated/missing model. */
export function watchModels(config: ModelCheckConfig, deps: WatchModelsDeps): ModelWatch {
  const log = deps.logger.child({ component: 'models' });
  const providers = deps.providers ?? createProviders(config, { logger: log });
  let latest: ModelStatus[] = modelTargets(config, providers).map((t) => ({
    surface: t.surface,
    provider: t.provider,
    model: t.model,
    variable: t.variable,
    status: 'unchecked',
    detail: 'check pending',
  }));
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  let stopped = false;
  // Shutdown aborts a list still in flight: a slow provider never holds the exit.
  const stopping = new AbortController();
  let settleFirst: (s: ModelStatus[]) => void = () => undefined;
  const firstCheck = new Promise<ModelStatus[]>((resolve) => { settleFirst = resolve; });

  const recheck = async (): Promise<ModelStatus[]> => {
    const result = await checkModels(config, { ...deps, providers, logger: log, signal: stopping.signal });
    if (stopped) return result;
    latest = result;
    for (const s of result) {
      if (s.status === 'deprecated' || s.status === 'missing') {
        log.warn({ surface: s.surface, provider: s.provider, model: s.model, status: s.status, shutdownDate: s.shutdownDate, variable: s.variable }, modelProblemLines([s])[0] ?? '');
      } else if (s.status === 'unchecked' && s.provider !== 'offline') {
        log.info({ surface: s.surface, provider: s.provider, model: s.model, detail: s.detail }, 'model not checked');
      }
    }
    return result;
  };

  return {
    current: () => latest,
    firstCheck,
    recheck,
    start() {
      if (started || stopped) return;
      started = true;
      void recheck().then(settleFirst, () => settleFirst(latest));
      timer = setInterval(() => void recheck().catch(() => undefined), deps.intervalMs ?? RECHECK_INTERVAL_MS);
      // The re-check must never keep the process alive.
      timer.unref();
    },
    stop() {
      stopped = true;
      stopping.abort();
      if (timer) clearInterval(timer);
      timer = undefined;
      settleFirst(latest);
    },
  };
}

