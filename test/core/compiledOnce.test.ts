import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { compiledOnce } from '../../core/store/compiledOnce.js';

interface Tables {
  t2_sessions: { id: string; status: string; transcript: string };
}

/** Kysely compiling for an engine without one (what `compile()` gives is all these tests read). */
function compilerFor(engine: 'sqlite' | 'postgres'): Kysely<Tables> {
  return new Kysely<Tables>({
    dialect: engine === 'sqlite'
      ? { createAdapter: () => new SqliteAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new SqliteIntrospector(db), createQueryCompiler: () => new SqliteQueryCompiler() }
      : { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new PostgresIntrospector(db), createQueryCompiler: () => new PostgresQueryCompiler() },
  });
}

const appendTurn = (db: Kysely<Tables>, v: { id: string; turn: string }) =>
  db.updateTable('t2_sessions').set({ transcript: sql<string>`json_insert(transcript, '$[#]', json(${v.turn}))` }).where('id', '=', v.id).where('status', '=', 'live');

describe('compiledOnce: a hot write compiled once, the values put in at each call', () => {
  for (const engine of ['sqlite', 'postgres'] as const) {
    it(`gives what Kysely compiles for the same values, on ${engine}`, () => {
      const db = compilerFor(engine);
      const write = compiledOnce(['id', 'turn'], (p) => appendTurn(db, p));
      for (const v of [{ id: 'a', turn: '{"text":"bonjour"}' }, { id: "o'b\u0000", turn: '{"text":"\u0000palabre:id\u0000"}' }]) {
        const once = write(v).compile();
        const each = appendTurn(db, v).compile();
        expect(once.sql).toBe(each.sql);
        expect(once.parameters).toEqual(each.parameters);
      }
    });
  }

  it('refuses a placeholder that is not exactly one parameter (missing, repeated, or in the text)', () => {
    const db = compilerFor('sqlite');
    expect(() => compiledOnce(['id', 'turn'], (p) => db.updateTable('t2_sessions').set({ status: 'x' }).where('id', '=', p.id))).toThrow(/"turn" must be exactly one parameter/);
    expect(() => compiledOnce(['id'], (p) => db.updateTable('t2_sessions').set({ status: p.id }).where('id', '=', p.id))).toThrow(/"id" must be exactly one parameter/);
    expect(() => compiledOnce(['id', 'col'], (p) => db.updateTable('t2_sessions').set({ status: sql.raw(`'${p.col}'`) }).where('id', '=', p.id))).toThrow(/"col" must be exactly one parameter/);
  });
});
