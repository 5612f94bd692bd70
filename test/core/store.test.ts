import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { migrate, openStore, type Migration } from '../../core/store/db.js';
import { sqliteStore } from '../../core/store/sqlStore.js';

const dir = mkdtempSync(join(tmpdir(), 'palabre-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite store', () => {
  it('opens in WAL mode and applies the core migrations once', () => {
    const path = join(dir, 'nested', 'palabre.db');
    const db = openStore({ path });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
    expect(versions).toContain(1);
    db.prepare("INSERT INTO kv (key, value) VALUES ('a', '1')").run();
    db.close();

    // Reopening applies nothing again and keeps the data.
    const again = openStore({ path });
    expect(again.prepare('SELECT COUNT(*) FROM schema_migrations WHERE version = 1').pluck().get()).toBe(1);
    expect(again.prepare("SELECT value FROM kv WHERE key = 'a'").pluck().get()).toBe('1');
    again.close();
  });

  it('creates the database 0600 (with its -wal/-shm) in a new folder made 0700', () => {
    const path = join(dir, 'private', 'palabre.db');
    const db = openStore({ path });
    db.prepare("INSERT INTO kv (key, value) VALUES ('a', '1')").run();
    expect(statSync(join(dir, 'private')).mode & 0o777).toBe(0o700);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) expect(statSync(file).mode & 0o777).toBe(0o600);
    db.close();
  });

  it('applies pending migrations in version order, each once, and rolls back a failing one', () => {
    const db = openStore({ path: join(dir, 'm.db') });
    const ran: number[] = [];
    const mine: Migration[] = [
      { version: 902, name: 'second', up: (d) => { ran.push(902); d.exec('ALTER TABLE t ADD COLUMN b TEXT'); } },
      { version: 901, name: 'first', up: (d) => { ran.push(901); d.exec('CREATE TABLE t (a TEXT)'); } },
    ];
    expect(migrate(db, mine)).toEqual([901, 902]);
    expect(ran).toEqual([901, 902]);
    expect(migrate(db, mine)).toEqual([]);
    expect(ran).toEqual([901, 902]);

    const broken: Migration = { version: 903, name: 'broken', up: 'CREATE TABLE u (x TEXT); CREATE TABLE t (dup TEXT);' };
    expect(() => migrate(db, [broken])).toThrow(/already exists/);
    // The transaction rolled back: neither table u nor a record of 903.
    expect(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'u'").pluck().get()).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM schema_migrations WHERE version = 903').pluck().get()).toBe(0);
    db.close();
  });

  it('writeAll reuses its prepared statements: same text, new values; past the cache bound; a failing batch rolls back whole', async () => {
    const db = openStore({ path: join(dir, 'w.db') });
    const store = sqliteStore(db);
    const k = store.db as unknown as import('kysely').Kysely<{ kv: { key: string; value: string } }>;
    const put = (key: string, value: string) => k.insertInto('kv').values({ key, value }).onConflict((oc) => oc.column('key').doUpdateSet({ value }));
    await store.writeAll([put('a', '1'), put('b', '2')]);
    await store.writeAll([put('a', '3')]);
    expect(db.prepare('SELECT key, value FROM kv ORDER BY key').all()).toEqual([{ key: 'a', value: '3' }, { key: 'b', value: '2' }]);
    // 300 distinct texts (more than the cache holds), then the first text again.
    for (let i = 0; i < 300; i++) await store.writeAll([k.updateTable('kv').set({ value: sql<string>`${sql.lit(String(i))}` }).where('key', '=', 'b')]);
    await store.writeAll([put('a', '4')]);
    expect(db.prepare("SELECT value FROM kv WHERE key = 'b'").pluck().get()).toBe('299');
    expect(db.prepare("SELECT value FROM kv WHERE key = 'a'").pluck().get()).toBe('4');
    // The second query fails (NOT NULL): the first, from a cached statement, is rolled back with it.
    expect(() => store.writeAll([put('a', '5'), k.insertInto('kv').values({ key: 'c', value: null as unknown as string })])).toThrow(/NOT NULL/);
    expect(db.prepare("SELECT value FROM kv WHERE key = 'a'").pluck().get()).toBe('4');
    db.close();
  });
});
