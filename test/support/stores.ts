import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PORTABLE_MIGRATIONS } from './migrations.js';
import { openStore, type Db } from '../../core/store/db.js';
import { postgresStore, sqliteStore, type Store } from '../../core/store/sqlStore.js';
import { requirePostgres } from './requires.js';

/**
 * The engines every store test runs against (the conformance suite): a SQLite file, and a fresh
 * Postgres database per test on DATABASE_URL_TEST. `open()` can be called twice on one fixture to
 * get two instances on the same data (what two `palabre serve` processes see).
 */
export interface EngineFixture {
  /** Opens one more instance on the same data. */
  open(): Promise<{ store: Store; db: Db }>;
  /** A URL for DATABASE_URL (Postgres), or undefined for SQLite. */
  url: string | undefined;
  close(): Promise<void>;
}

export interface Engine {
  name: 'sqlite' | 'postgres';
  ok: boolean;
  reason: string;
  fixture(): Promise<EngineFixture>;
}

const pgReq = requirePostgres();

export const ENGINES: Engine[] = [
  { name: 'sqlite', ok: true, reason: 'SQLite file', fixture: sqliteFixture },
  { name: 'postgres', ok: pgReq.ok, reason: pgReq.reason, fixture: () => postgresFixture(pgReq.path) },
];

async function sqliteFixture(): Promise<EngineFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-store-'));
  const opened: Array<{ store: Store; db: Db }> = [];
  return {
    url: undefined,
    open() {
      const db = openStore({ path: join(dir, 'palabre.db') });
      const s = { store: sqliteStore(db, PORTABLE_MIGRATIONS), db };
      opened.push(s);
      return Promise.resolve(s);
    },
    async close() {
      for (const o of opened) {
        await o.store.close();
        o.db.close();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A database of its own per fixture, dropped at close: tests running at once do not meet. */
export async function createTestDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `palabre_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

async function postgresFixture(baseUrl: string): Promise<EngineFixture> {
  const database = await createTestDatabase(baseUrl);
  const dir = mkdtempSync(join(tmpdir(), 'palabre-store-'));
  const opened: Array<{ store: Store; db: Db }> = [];
  let n = 0;
  return {
    url: database.url,
    async open() {
      // Each instance keeps its own SQLite file for the stores not on the port.
      const db = openStore({ path: join(dir, `instance-${n++}.db`) });
      const s = { store: await postgresStore({ url: database.url, migrations: PORTABLE_MIGRATIONS, max: 4 }), db };
      opened.push(s);
      return s;
    },
    async close() {
      for (const o of opened) {
        await o.store.close();
        o.db.close();
      }
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Inside a `describe` per engine: a fixture getter whose fixture is closed after each test (the
 * per-engine boilerplate of the conformance suites).
 */
export function engineFixtures(engine: Engine, afterEach: (fn: () => Promise<void>) => void): () => Promise<EngineFixture> {
  let fx: EngineFixture | undefined;
  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });
  return async () => (fx = await engine.fixture());
}
