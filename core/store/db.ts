import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../log.js';

export type Db = Database.Database;

/**
 * A versioned migration. Versions are global and applied in order, once, inside a transaction.
 * Ranges by owner, so that surfaces add theirs without colliding:
 *   1–99 core · 100–199 skull · 200–299 corrections (+ auth) · 300–399 docs · 400–499 t2 · 500–599 inspect
 */
export interface Migration {
  version: number;
  name: string;
  up: string | ((db: Db) => void);
}

const registry = new Map<number, Migration>();

/**
 * Core's own migrations are registered here at module load (below) and applied by `openStore`.
 * Surfaces do not register: their stores (corrections, T2, chat settings, admin and visitor
 * sessions) are on the store port, whose migrations (declared by each surface, applied in order by core/store/appStore.ts)
 * are applied when the store opens.
 */
function registerMigrations(...migrations: Migration[]): void {
  for (const m of migrations) {
    const existing = registry.get(m.version);
    if (existing && existing.name !== m.name) {
      throw new Error(`migration ${m.version} registered twice (${existing.name}, ${m.name})`);
    }
    registry.set(m.version, m);
  }
}

registerMigrations({
  version: 1,
  name: 'core_kv',
  up: `CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL DEFAULT (datetime('now')))`,
});

export interface OpenStoreOptions {
  path: string;
  logger?: Logger;
  /** Extra migrations, applied with the registered ones. */
  migrations?: Migration[];
}

/** Opens (creating if needed) the SQLite file in WAL mode and brings its schema up to date. */
export function openStore(opts: OpenStoreOptions): Db {
  if (opts.path !== ':memory:') ensurePrivateFile(opts.path);
  const db = new Database(opts.path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, [...registry.values(), ...(opts.migrations ?? [])], opts.logger);
  return db;
}

/**
 * The store holds transcripts and session rows: readable by this user only. A new folder is made
 * 0700 (an existing one is the operator's choice and left alone); the file is created 0600 before
 * SQLite opens it, and SQLite gives its -wal and -shm files the same mode as the database file.
 */
function ensurePrivateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
}

export function migrate(db: Db, migrations: Migration[], logger?: Logger): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT (datetime('now')))`);
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const pending = migrations.filter((m) => !applied.has(m.version)).sort((a, b) => a.version - b.version);
  const record = db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)');
  for (const m of pending) {
    db.transaction(() => {
      if (typeof m.up === 'string') db.exec(m.up);
      else m.up(db);
      record.run(m.version, m.name);
    })();
    logger?.info({ version: m.version, migration: m.name }, 'migration applied');
  }
  return pending.map((m) => m.version);
}
