import type { Kysely } from 'kysely';
import { RateLimiterPostgres, RateLimiterSQLite, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import type { PortableMigration, Store } from '../store/sqlStore.js';

/** Admin sessions on the store port: a login on one instance is valid on every instance. */
export const ADMIN_MIGRATIONS: PortableMigration[] = [
  {
    version: 300,
    name: 'docs_admin_sessions',
    up: (k) => [
      k.schema.createTable('admin_sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('csrf', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull()),
    ],
  },
];

type AdminTables = {
  admin_sessions: { id_hash: string; csrf: string; created_at: number; expires_at: number };
};

export class AdminSessionStore {
  private readonly db: Kysely<AdminTables>;

  constructor(store: Store) {
    this.db = store.db.withTables<AdminTables>();
  }

  async insert(idHash: string, csrf: string, now: number, expiresAt: number): Promise<void> {
    await this.db.insertInto('admin_sessions').values({ id_hash: idHash, csrf, created_at: now, expires_at: expiresAt }).execute();
  }

  async find(idHash: string, now: number): Promise<{ csrf: string } | undefined> {
    return this.db.selectFrom('admin_sessions').select('csrf').where('id_hash', '=', idHash).where('expires_at', '>', now).executeTakeFirst();
  }

  async remove(idHash: string): Promise<void> {
    await this.db.deleteFrom('admin_sessions').where('id_hash', '=', idHash).execute();
  }

  async purge(now: number): Promise<void> {
    await this.db.deleteFrom('admin_sessions').where('expires_at', '<=', now).execute();
  }
}

/**
 * Login-failure counters in the same engine as the sessions, so the throttle holds across
 * instances: rate-limiter-flexible's SQLite store on the embedded file, its Postgres store on the
 * shared pool.
 */
export function loginLimiter(opts: { store: Store; db: Db; tableName: string; points: number; durationS: number; logger: Logger }): Promise<RateLimiterAbstract> {
  // The library creates its table asynchronously and reports through this callback; resolve then,
  // so that the first login does not meet "Table is not created yet".
  return new Promise((resolve, reject) => {
    // The callback may run inside the constructor (before it returns): keep the limiter in a box.
    const box: { limiter?: RateLimiterAbstract } = {};
    let outcome: Error | null | undefined;
    const settle = (): void => {
      if (!box.limiter || outcome === undefined) return;
      if (outcome) {
        opts.logger.error({ err: outcome.message, tableName: opts.tableName }, 'admin login throttle table could not be created');
        reject(outcome);
      } else resolve(box.limiter);
    };
    const onReady = (err?: Error): void => {
      outcome = err ?? null;
      settle();
    };
    const common = { tableName: opts.tableName, points: opts.points, duration: opts.durationS, clearExpiredByTimeout: false };
    box.limiter = opts.store.pgPool
      ? new RateLimiterPostgres({ ...common, storeClient: opts.store.pgPool, storeType: 'pool' }, onReady)
      : new RateLimiterSQLite({ ...common, storeClient: opts.db, storeType: 'better-sqlite3' }, onReady);
    settle();
  });
}
