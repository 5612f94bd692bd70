import { join } from 'node:path';
import { loadConfig, type Config, type LoadOptions } from './config/index.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics.js';
import { openStore, type Db } from './store/db.js';
import { openAppStore } from './store/appStore.js';
import type { Store } from './store/sqlStore.js';
import { Runtime } from './runtime.js';
import { EngineSet } from './sharedEngines.js';
import { startJournal } from './journal/start.js';
import type { JournalRecorder } from './journal/recorder.js';
import type { AppContext } from './surfaceContract.js';
import { createProviders } from '../actors/llm/providers.js';

/** Everything of the AppContext that does not depend on a listening socket. */
export type CoreContext = Omit<AppContext, 'mqttUrl' | 'publicUrl'>;

export interface App extends CoreContext {
  /** The store port: SQLite over `db`, or Postgres with DATABASE_URL. */
  store: Store;
  /** Engines shared by surfaces: `palabre serve` stops them once every surface has drained. */
  engines: EngineSet;
  /** The conversation journal (JOURNAL=on), for `journal.flush()` and `journal.idOf(systemId)`. */
  journal?: JournalRecorder;
  /** Stops every conversation and shared engine, closes the store and flushes the logs. Idempotent. */
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
  const logger = opts.logger ?? createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, ...(config.LOG_FILE ? { destination: config.LOG_FILE } : {}) });
  const db = openStore({ path: dbPathOf(config), logger });
  let store: Store;
  try {
    store = await openAppStore({ databaseUrl: config.DATABASE_URL, db, logger });
  } catch (err) {
    db.close();
    throw err;
  }
  logger.info({ store: store.dialect }, 'store open');
  const runtime = new Runtime();
  const journal = startJournal(config, runtime, store, logger, dbPathOf(config));
  const metrics = createMetrics();
  // SDKs load lazily on a provider's first call: building the registry costs nothing.
  const providers = createProviders(config, { logger, metrics });
  const engines = new EngineSet(logger);

  let closed: Promise<void> | undefined;
  return {
    config,
    logger,
    db,
    store,
    runtime,
    metrics,
    providers,
    engines,
    ...(journal ? { journal } : {}),
    close() {
      closed ??= (async () => {
        runtime.shutdown();
        await journal?.close();
        await engines.stop();
        await store.close().catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'store close failed'));
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

export type { Db, Metrics, Runtime };
