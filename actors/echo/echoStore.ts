import { sql } from 'kysely';
import type { PortableMigration, Store } from '../../core/store/sqlStore.js';

type EchoTables = { echo_counts: { name: string; count: number } };

/** One row per counter: the process's total of echoes (the example of a surface's migration). */
export const ECHO_MIGRATIONS: PortableMigration[] = [
  {
    version: 900,
    name: 'echo_counts',
    up: (k) => [
      k.schema.createTable('echo_counts')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('count', 'integer', (c) => c.notNull()),
    ],
  },
];

export class EchoStore {
  private readonly db;

  constructor(private readonly store: Store) {
    this.db = store.db.withTables<EchoTables>();
  }

  /** Adds one to the total and returns it. */
  async count(): Promise<number> {
    await this.store.writeAll([
      this.db.insertInto('echo_counts').values({ name: 'total', count: 1 })
        .onConflict((oc) => oc.column('name').doUpdateSet({ count: sql<number>`echo_counts.count + 1` })),
    ]);
    return this.total();
  }

  async total(): Promise<number> {
    const row = await this.db.selectFrom('echo_counts').select('count').where('name', '=', 'total').executeTakeFirst();
    return Number(row?.count ?? 0);
  }
}
