import { EventEmitter } from 'node:events';
import {
  DummyDriver, Kysely, PostgresAdapter, PostgresDialect, PostgresIntrospector, PostgresQueryCompiler, SqliteAdapter,
  SqliteDialect, SqliteIntrospector, SqliteQueryCompiler, sql, type Compilable, type CompiledQuery, type Dialect,
} from 'kysely';
import type { Statement } from 'better-sqlite3';
import type { Client as PgClient, Pool as PgPool } from 'pg';
import { redactUrl, type Logger } from '../log.js';
import { migrate as migrateSqlite, type Db, type Migration } from './db.js';

/**
 * The store port: the same stores run on the embedded SQLite file (default) or on Postgres
 * (DATABASE_URL=postgres://…), so several `palabre serve` processes share one state.
 *
 * Why Kysely: one typed query builder whose SqliteDialect sits on our existing better-sqlite3
 * connection and whose PostgresDialect sits on `pg`'s pool, so a store is written once and its
 * migrations are Kysely schema-builder code compiled for each dialect (no second hand-written SQL
 * layer, no ORM runtime between us and the SQL). It has no dependencies, is actively kept and
 * runs on Node 20.
 */
export type StoreDialect = 'sqlite' | 'postgres';

export interface Store {
  readonly dialect: StoreDialect;
  /** Typed per store with `store.db.withTables<T>()`. */
  readonly db: Kysely<object>;
  /**
   * Runs the compiled writes in one transaction, all or nothing. On SQLite they run synchronously
   * inside better-sqlite3's transaction (no other work can interleave on the shared connection).
   */
  writeAll(queries: readonly Compilable[]): Promise<void>;
  /** Round trip to the engine (`SELECT 1`), in milliseconds; rejects when it is unreachable. */
  ping(timeoutMs?: number): Promise<number>;
  /** Tells every instance (Postgres NOTIFY; SQLite: this process only, there is only one). */
  notify(channel: string, payload: string): Promise<void>;
  /** Calls `onMessage` for every notify on `channel`, from any instance. Resolves once listening. */
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => void>;
  close(): Promise<void>;
  /** The pool, for libraries that speak to Postgres themselves (rate-limiter-flexible). */
  readonly pgPool?: PgPool;
}

/** A migration written once with Kysely's schema builder, compiled for the engine at hand. */
export interface PortableMigration {
  version: number;
  name: string;
  up(schema: Kysely<object>, dialect: StoreDialect): Compilable[];
}

const compilers: Record<StoreDialect, Kysely<object>> = {
  sqlite: new Kysely<object>({ dialect: compileOnly(() => new SqliteAdapter(), (db) => new SqliteIntrospector(db), () => new SqliteQueryCompiler()) }),
  postgres: new Kysely<object>({ dialect: compileOnly(() => new PostgresAdapter(), (db) => new PostgresIntrospector(db), () => new PostgresQueryCompiler()) }),
};

function compileOnly(adapter: Dialect['createAdapter'], introspector: Dialect['createIntrospector'], compiler: Dialect['createQueryCompiler']): Dialect {
  return { createAdapter: adapter, createDriver: () => new DummyDriver(), createIntrospector: introspector, createQueryCompiler: compiler };
}

export function compileMigration(m: PortableMigration, dialect: StoreDialect): CompiledQuery[] {
  return m.up(compilers[dialect], dialect).map((q) => q.compile());
}

/** The SQLite form of a portable migration, for the synchronous registry of core/store/db.ts. */
function forSqlite(m: PortableMigration): Migration {
  return {
    version: m.version,
    name: m.name,
    up: (db: Db) => {
      for (const q of compileMigration(m, 'sqlite')) db.prepare(q.sql).run(...(q.parameters as unknown[]));
    },
  };
}

const MAX_CACHED_STATEMENTS = 256;

/** The SQLite store over the process's better-sqlite3 connection (shared with unconverted stores). */
export function sqliteStore(db: Db, migrations: readonly PortableMigration[] = []): Store {
  migrateSqlite(db, migrations.map(forSqlite));
  const kysely = new Kysely<object>({ dialect: new SqliteDialect({ database: db }) });
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  // Statements prepared once per SQL text and the transaction wrapper built once: the writes on
  // hot paths (a T2 turn, ≈ 130 a second at 200 sessions) repeat a handful of texts, and preparing
  // one cost more than running it (bench/journal/2026-12-performance.md, on "T2: the per-reply work"). Bounded: texts that vary (an
  // `in` list's length) cannot grow it without end.
  const statements = new Map<string, Statement>();
  const prepared = (text: string): Statement => {
    let st = statements.get(text);
    if (!st) {
      if (statements.size >= MAX_CACHED_STATEMENTS) statements.clear();
      st = db.prepare(text);
      statements.set(text, st);
    }
    return st;
  };
  const runAll = db.transaction((compiled: readonly CompiledQuery[]) => {
    for (const q of compiled) prepared(q.sql).run(...(q.parameters as unknown[]));
  });
  return {
    dialect: 'sqlite',
    db: kysely,
    writeAll(queries) {
      runAll(queries.map((q) => q.compile()));
      return Promise.resolve();
    },
    ping() {
      const t0 = performance.now();
      db.prepare('SELECT 1').get();
      return Promise.resolve(performance.now() - t0);
    },
    notify(channel, payload) {
      bus.emit(channel, payload);
      return Promise.resolve();
    },
    listen(channel, onMessage) {
      bus.on(channel, onMessage);
      return Promise.resolve(() => bus.off(channel, onMessage));
    },
    // The connection belongs to the app (core/app.ts closes it); Kysely's destroy would close it.
    close: () => Promise.resolve(),
  };
}

export interface PostgresStoreOptions {
  url: string;
  logger?: Logger;
  migrations?: readonly PortableMigration[];
  /** Pool size per instance. */
  max?: number;
}

/** Serialises migrations across instances that start at the same time ("palab" in ASCII). */
const MIGRATION_LOCK = 0x70616c6162;

/** Opens the pool, applies pending migrations (one instance at a time) and listens for notifies. */
export async function postgresStore(opts: PostgresStoreOptions): Promise<Store> {
  const log = opts.logger?.child({ store: 'postgres' });
  // pg is loaded with the first Postgres store: the SQLite default never holds it (idle RSS).
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: opts.url, max: opts.max ?? 10, connectionTimeoutMillis: 5000 });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', (err) => log?.warn({ err: err.message }, 'postgres pool client error'));
  const kysely = new Kysely<object>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migratePostgres(pool, opts.migrations ?? [], log);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new Error(`palabre: cannot prepare the Postgres store at ${redactUrl(opts.url)}: ${(err as Error).message}. Check DATABASE_URL and that the server is up.`);
  }
  const listener = new Listener(opts.url, log);
  return {
    dialect: 'postgres',
    db: kysely,
    pgPool: pool,
    async writeAll(queries) {
      // One statement is atomic on its own: one round trip instead of BEGIN, it, COMMIT.
      if (queries.length === 1) {
        await kysely.executeQuery(queries[0]!.compile());
        return;
      }
      await kysely.transaction().execute(async (trx) => {
        for (const q of queries) await trx.executeQuery(q.compile());
      });
    },
    async ping(timeoutMs = 2000) {
      const t0 = performance.now();
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          sql`SELECT 1`.execute(kysely),
          new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs); }),
        ]);
      } finally {
        clearTimeout(timer);
      }
      return performance.now() - t0;
    },
    async notify(channel, payload) {
      await sql`SELECT pg_notify(${channel}, ${payload})`.execute(kysely);
    },
    listen: (channel, onMessage) => listener.add(channel, onMessage),
    async close() {
      await listener.close();
      await kysely.destroy();
    },
  };
}

async function migratePostgres(pool: PgPool, migrations: readonly PortableMigration[], log?: Logger): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const applied = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(m.version)) continue;
      for (const q of compileMigration(m, 'postgres')) await client.query(q.sql, q.parameters as unknown[]);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      log?.info({ version: m.version, migration: m.name }, 'migration applied');
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * One dedicated connection for LISTEN (a pooled one would be handed to queries). When it drops it
 * reconnects with a growing delay and listens again; `onReconnect` subscribers should re-read
 * their state, since notifies sent while it was down are lost.
 */
class Listener {
  private client: PgClient | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private closed = false;
  private connecting: Promise<PgClient> | undefined;
  private delay = 200;

  constructor(private readonly url: string, private readonly log?: Logger) {}

  async add(channel: string, onMessage: (payload: string) => void): Promise<() => void> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      const client = await this.connect();
      await client.query(`LISTEN ${channel}`);
    }
    set.add(onMessage);
    return () => set.delete(onMessage);
  }

  private connect(): Promise<PgClient> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: this.url });
      client.on('notification', (n) => {
        for (const h of this.handlers.get(n.channel) ?? []) h(n.payload ?? '');
      });
      // A lost connection shows as 'error' (terminated, network) and/or 'end': reconnect once.
      const lost = (why: string): void => {
        if (this.client !== client) return;
        this.log?.warn({ why }, 'postgres LISTEN connection lost; reconnecting');
        this.client = undefined;
        this.reconnectLater();
      };
      client.on('error', (err) => lost(err.message));
      client.on('end', () => lost('connection ended'));
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
      this.client = client;
      this.delay = 200;
      return client;
    })().finally(() => { this.connecting = undefined; });
    return this.connecting;
  }

  private reconnectLater(): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.connect().then(
        () => { for (const h of this.handlers.get(RECONNECTED) ?? []) h(''); },
        () => { this.delay = Math.min(this.delay * 2, 10_000); this.reconnectLater(); },
      );
    }, this.delay);
    t.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }
}

/** Pseudo-channel: called after the LISTEN connection came back (state may have been missed). */
export const RECONNECTED = '_reconnected';

