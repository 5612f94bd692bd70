import type { Generated, Kysely } from 'kysely';
import type { PortableMigration, Store } from '../../core/store/sqlStore.js';

/**
 * Visitor session rows on the store port: with DATABASE_URL a browser's /assistant settings and
 * threads are the same whichever instance answers. Version 301 and the table are those the
 * SQLite-only store created, so an existing file is not migrated again.
 */
export const VISITOR_MIGRATIONS: PortableMigration[] = [
  {
    version: 301,
    name: 'docs_visitor_sessions',
    up: (k) => [
      k.schema.createTable('visitor_sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('threads', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull()),
    ],
  },
];

type VisitorTables = {
  visitor_sessions: { id_hash: string; settings: Generated<string>; threads: Generated<string>; created_at: number; updated_at: number };
};

/** Settings and threads are JSON text, parsed and validated by VisitorSessions (session.ts). */
export class VisitorSessionStore {
  private readonly db: Kysely<VisitorTables>;

  constructor(store: Store) {
    this.db = store.db.withTables<VisitorTables>();
  }

  /** The row, if it was used after `aliveAfter`. */
  async find(idHash: string, aliveAfter: number): Promise<{ settings: string; threads: string } | undefined> {
    return this.db.selectFrom('visitor_sessions').select(['settings', 'threads'])
      .where('id_hash', '=', idHash).where('updated_at', '>', aliveAfter).executeTakeFirst();
  }

  async insert(idHash: string, now: number): Promise<void> {
    await this.db.insertInto('visitor_sessions').values({ id_hash: idHash, created_at: now, updated_at: now }).execute();
  }

  async setSettings(idHash: string, settings: string, now: number): Promise<void> {
    await this.db.updateTable('visitor_sessions').set({ settings, updated_at: now }).where('id_hash', '=', idHash).execute();
  }

  async setThreads(idHash: string, threads: string, now: number): Promise<void> {
    await this.db.updateTable('visitor_sessions').set({ threads, updated_at: now }).where('id_hash', '=', idHash).execute();
  }

  /** Removes the rows not used since `usedBefore` (inclusive). */
  async purge(usedBefore: number): Promise<void> {
    await this.db.deleteFrom('visitor_sessions').where('updated_at', '<=', usedBefore).execute();
  }
}
