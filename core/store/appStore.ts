import type { Logger } from '../log.js';
import type { Db } from './db.js';
import { postgresStore, sqliteStore, type PortableMigration, type Store } from './sqlStore.js';

/**
 * Every migration the surfaces declare, plus core's own (admin sessions), in version order: the
 * one ordered place a Postgres instance applies them all before it serves. Two surfaces may
 * declare a shared store's migrations (visitor sessions); a version used twice with different
 * names is a mistake and refused here.
 */
export function orderedMigrations(groups: ReadonlyArray<readonly PortableMigration[]>): PortableMigration[] {
  const byVersion = new Map<number, PortableMigration>();
  for (const m of groups.flat()) {
    const seen = byVersion.get(m.version);
    if (seen && seen.name !== m.name) throw new Error(`migration version ${m.version} is declared twice: ${seen.name} and ${m.name}`);
    byVersion.set(m.version, m);
  }
  return [...byVersion.values()].sort((a, b) => a.version - b.version);
}

/** DATABASE_URL=postgres://… → Postgres; otherwise the embedded SQLite file the app already opened. */
export async function openAppStore(opts: { databaseUrl?: string | undefined; db: Db; migrations: readonly PortableMigration[]; logger?: Logger }): Promise<Store> {
  if (opts.databaseUrl) return postgresStore({ url: opts.databaseUrl, migrations: opts.migrations, ...(opts.logger ? { logger: opts.logger } : {}) });
  return sqliteAppStore(opts.db, opts.migrations);
}

/** The SQLite store over `db` with these migrations applied; `storeOf({ db })` returns it from now on. */
export function sqliteAppStore(db: Db, migrations: readonly PortableMigration[]): Store {
  const store = sqliteStore(db, migrations);
  fallback.set(db, store);
  return store;
}

const fallback = new WeakMap<Db, Store>();

/**
 * The context's store. A context built without one (tests, one-off commands) gets the SQLite store
 * opened on its `db` by `openAppStore` (with every migration), one per connection so that
 * notifies reach every listener on that file.
 */
export function storeOf(ctx: { db: Db; store?: Store | undefined }): Store {
  if (ctx.store) return ctx.store;
  let s = fallback.get(ctx.db);
  if (!s) {
    s = sqliteStore(ctx.db);
    fallback.set(ctx.db, s);
  }
  return s;
}
