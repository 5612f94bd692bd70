import type { Logger } from '../log.js';
import type { Db } from './db.js';
import { postgresStore, sqliteStore, type PortableMigration, type Store } from './sqlStore.js';
import { CORRECTION_MIGRATIONS } from '../../actors/corrections/store.js';
import { chatConfigMigrations } from '../../actors/docs/chatConfigStore.js';
import { GAP_MIGRATIONS } from '../../actors/docs/gapStore.js';
import { ADMIN_MIGRATIONS } from '../../transports/http/adminStore.js';
import { VISITOR_MIGRATIONS } from '../../transports/http/visitorStore.js';
import { T2_MIGRATIONS } from '../../actors/t2/migrations.js';
import { JOURNAL_MIGRATIONS } from '../journal/store.js';

/**
 * Every migration of the stores that run on the store port (SQLite or Postgres). Listed here, not
 * registered at module load, so that a Postgres instance can apply them all before it serves.
 * Not on the port: core's kv (it stays in the instance's SQLite file even with DATABASE_URL).
 */
export const PORTABLE_MIGRATIONS: readonly PortableMigration[] = [...CORRECTION_MIGRATIONS, ...chatConfigMigrations, ...GAP_MIGRATIONS, ...ADMIN_MIGRATIONS, ...VISITOR_MIGRATIONS, ...T2_MIGRATIONS, ...JOURNAL_MIGRATIONS];

/** DATABASE_URL=postgres://… → Postgres; otherwise the embedded SQLite file the app already opened. */
export async function openAppStore(opts: { databaseUrl?: string | undefined; db: Db; logger?: Logger }): Promise<Store> {
  if (opts.databaseUrl) return postgresStore({ url: opts.databaseUrl, migrations: PORTABLE_MIGRATIONS, ...(opts.logger ? { logger: opts.logger } : {}) });
  return sqliteStore(opts.db, PORTABLE_MIGRATIONS);
}

const fallback = new WeakMap<Db, Store>();

/**
 * The context's store; a context built without one (tests, one-off commands) gets a SQLite store
 * over its `db`, one per connection so that notifies reach every listener on that file.
 */
export function storeOf(ctx: { db: Db; store?: Store | undefined }): Store {
  if (ctx.store) return ctx.store;
  let s = fallback.get(ctx.db);
  if (!s) {
    s = sqliteStore(ctx.db, PORTABLE_MIGRATIONS);
    fallback.set(ctx.db, s);
  }
  return s;
}
