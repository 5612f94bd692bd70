import { join } from 'node:path';
import type { CoreConfig } from './config/schema.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics } from './metrics.js';
import { openStore } from './store/db.js';
import { openAppStore, orderedMigrations } from './store/appStore.js';
import type { PortableMigration, Store } from './store/sqlStore.js';
import { ADMIN_MIGRATIONS } from './admin/adminStore.js';
import { JOURNAL_MIGRATIONS } from './journal/store.js';
import { Runtime } from './runtime.js';
import { EngineSet } from './sharedEngines.js';
import { startJournal } from './journal/start.js';
import type { JournalRecorder } from './journal/recorder.js';
import type { AppContext, AppServices, Surface } from './surfaceContract.js';

/** Everything of the AppContext that does not depend on a listening socket. */
type CoreContext = Omit<AppContext, 'mqtt' | 'publicUrl' | 'admin' | 'auth' | 'machines'>;

/**
 * What the layers above core bring to the process besides surfaces (actors/llm/llmServices.ts:
 * the LLM providers and the background model check): built once, beside core's own services.
 */
export interface ProcessServices {
  /** Added to every surface's context. */
  context: AppServices;
  /** Top-level facts of a ready /healthz (e.g. the provider per surface, the model check). */
  health?(): Record<string, unknown>;
  /** Called once the process serves, and at the stop. */
  start?(): void;
  stop?(): void;
}

export interface App extends CoreContext {
  /** The store port: SQLite over `db`, or Postgres with DATABASE_URL. */
  store: Store;
  /** Engines shared by surfaces: `palabre serve` stops them once every surface has drained. */
  engines: EngineSet;
  /** The conversation journal (JOURNAL=on), for `journal.flush()` and `journal.idOf(systemId)`. */
  journal?: JournalRecorder;
  services: ProcessServices;
  /** Stops every conversation and shared engine, closes the store and flushes the logs. Idempotent. */
  close(): Promise<void>;
}

export interface CreateAppOptions<C extends CoreConfig = CoreConfig> {
  /**
   * The configuration, loaded by the caller with every section its surfaces declare
   * (core/config/load.ts). Core reads its own keys; the rest it hands on untouched.
   */
  config: C;
  /** A logger to use instead of the one LOG_LEVEL/LOG_FILE describe (tests). */
  logger?: Logger;
  /** The surfaces whose migrations the store applies (core's own are always applied). */
  surfaces?: readonly Pick<Surface, 'name' | 'migrations' | 'machines'>[];
  /** Services of the layers above, built from the core context. */
  services?: (core: Pick<CoreContext, 'logger' | 'metrics'> & { config: C }) => ProcessServices;
}

export function dbPathOf(config: Pick<CoreConfig, 'DB_PATH' | 'DATA_DIR'>): string {
  return config.DB_PATH ?? join(config.DATA_DIR, 'palabre.db');
}

/** Core's migrations and every surface's, in the one order the store applies them. */
export function migrationsOf(surfaces: readonly Pick<Surface, 'migrations'>[]): PortableMigration[] {
  return orderedMigrations([ADMIN_MIGRATIONS, JOURNAL_MIGRATIONS, ...surfaces.map((s) => s.migrations ?? [])]);
}

/** Which surface declared each machine kind: the journal files each conversation under its surface. */
function surfaceOfMachine(surfaces: readonly Pick<Surface, 'name' | 'machines'>[]): Readonly<Record<string, string>> {
  const of: Record<string, string> = {};
  for (const s of surfaces) for (const kind of Object.keys(s.machines ?? {})) of[kind] ??= s.name;
  return of;
}

/**
 * Builds the process's shared pieces from a loaded configuration: logger, store (WAL, every
 * migration applied), the actor runtime, Prometheus metrics and the services of the layers above.
 * Sockets (HTTP, MQTT) are opened by the caller: `core/server.ts` for `palabre serve`.
 */
export async function createApp<C extends CoreConfig>(opts: CreateAppOptions<C>): Promise<App> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, ...(config.LOG_FILE ? { destination: config.LOG_FILE } : {}) });
  const db = openStore({ path: dbPathOf(config), logger });
  let store: Store;
  try {
    store = await openAppStore({ databaseUrl: config.DATABASE_URL, db, logger, migrations: migrationsOf(opts.surfaces ?? []) });
  } catch (err) {
    db.close();
    throw err;
  }
  logger.info({ store: store.dialect }, 'store open');
  const runtime = new Runtime();
  const journal = startJournal(config, runtime, store, surfaceOfMachine(opts.surfaces ?? []), logger, dbPathOf(config));
  const metrics = createMetrics();
  const services = opts.services?.({ config, logger, metrics }) ?? { context: {} as AppServices };
  const engines = new EngineSet(logger);

  let closed: Promise<void> | undefined;
  return {
    ...services.context,
    config,
    logger,
    db,
    store,
    runtime,
    metrics,
    engines,
    ...(journal ? { journal } : {}),
    services,
    close() {
      closed ??= (async () => {
        services.stop?.();
        runtime.shutdown();
        await journal?.close();
        await engines.stop();
        await store.close().catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'store close failed'));
        if (db.open) db.close();
      })();
      return closed;
    },
  };
}

