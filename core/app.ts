import { join } from 'node:path';
import { loadConfig, type Config, type LoadOptions } from './config/index.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics.js';
import { openStore, type Db } from './store/db.js';
import { Runtime } from './runtime.js';
import type { AppContext } from './surface.js';
import type { ProviderRegistry } from '../actors/llm/registry.js';
import { fallbackProviders } from './fallbackProviders.js';

/** Everything of the AppContext that does not depend on a listening socket. */
export type CoreContext = Omit<AppContext, 'mqttUrl' | 'publicUrl'>;

export interface App extends CoreContext {
  /** Stops every conversation, closes the store and flushes the logs. Idempotent. */
  close(): Promise<void>;
}

export interface CreateAppOptions {
  /** A ready configuration; otherwise loaded with `load` (environment, .env, PALABRE_CONFIG). */
  config?: Config;
  load?: LoadOptions;
  /** A logger to use instead of the one LOG_LEVEL/LOG_FILE describe (tests). */
  logger?: Logger;
}

export function dbPathOf(config: Config): string {
  return config.DB_PATH ?? join(config.DATA_DIR, 'palabre.db');
}

/**
 * Builds the process's shared pieces: configuration (throws ConfigError listing every bad key),
 * logger, SQLite store (WAL, migrations applied), the actor runtime, Prometheus metrics and the
 * LLM providers. Sockets (HTTP, MQTT) are opened by the caller: `core/server.ts` for
 * `palabre serve`, the Skull command for `palabre skull`.
 */
export async function createApp(opts: CreateAppOptions = {}): Promise<App> {
  const config = opts.config ?? loadConfig(opts.load);
  const logger = opts.logger ?? createLogger({ level: config.LOG_LEVEL, ...(config.LOG_FILE ? { destination: config.LOG_FILE } : {}) });
  const db = openStore({ path: dbPathOf(config), logger });
  const runtime = new Runtime();
  const metrics = createMetrics();
  const providers = await loadProviders(config, logger, metrics);

  let closed: Promise<void> | undefined;
  return {
    config,
    logger,
    db,
    runtime,
    metrics,
    providers,
    close() {
      closed ??= (async () => {
        runtime.shutdown();
        if (db.open) db.close();
        await flushLogger(logger);
      })();
      return closed;
    },
  };
}

/** Resolves once pino's asynchronous destination has written everything it holds. */
export function flushLogger(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    try {
      logger.flush(() => resolve());
    } catch {
      resolve();
    }
  });
}

interface ProvidersModule {
  createProviders(config: Config, deps: { logger: Logger; metrics: Metrics }): ProviderRegistry;
}

/**
 * The provider registry from `actors/llm/providers.ts`. Until that module is part of the build,
 * a minimal registry answers with the offline provider only, so `palabre serve` still runs.
 */
async function loadProviders(config: Config, logger: Logger, metrics: Metrics): Promise<ProviderRegistry> {
  // A variable specifier keeps the typechecker from requiring the module while it does not exist.
  const specifier = '../actors/llm/providers.js';
  let mod: ProvidersModule;
  try {
    mod = (await import(specifier)) as ProvidersModule;
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e.code === 'ERR_MODULE_NOT_FOUND' && e.message?.includes('providers')) {
      logger.warn('actors/llm/providers is not in this build: using the offline provider only');
      return fallbackProviders();
    }
    throw err;
  }
  return mod.createProviders(config, { logger, metrics });
}

export type { Db, Metrics, Runtime };
