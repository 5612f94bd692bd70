import { CompiledQuery, type Compilable } from 'kysely';

/**
 * A write whose SQL is compiled once, for hot paths. Kysely builds a query's tree and compiles it
 * to SQL on every call: for a T2 turn (≈ 130 a second at 200 sessions) that was tens of µs of the
 * event loop, and its visitors were among the functions V8 kept re-optimizing on its helper
 * threads long after the start (bench/journal/2026-12-performance.md, on "T2: the JIT's share"). The text does not change from one
 * call to the next; only the values do.
 *
 * `build` gets a placeholder for each named value and must use each one as a plain parameter
 * (`.where('id', '=', p.id)`, `${p.turn}` in a `sql` template): the compiled text is kept, and each
 * call puts the real values where the placeholders were. A placeholder that is not a parameter
 * (used as an identifier, concatenated, dropped) is refused at construction, not at run time.
 */
export function compiledOnce<K extends string>(keys: readonly K[], build: (p: Readonly<Record<K, string>>) => Compilable): (values: Readonly<Record<K, unknown>>) => Compilable {
  const marks = Object.fromEntries(keys.map((k) => [k, `\u0000palabre:${k}\u0000`])) as Record<K, string>;
  const compiled = build(marks).compile();
  const slots = compiled.parameters.map((p) => keys.find((k) => marks[k] === p));
  for (const k of keys) {
    if (slots.filter((s) => s === k).length !== 1) throw new Error(`compiledOnce: "${k}" must be exactly one parameter of the query (${compiled.sql})`);
  }
  if (Object.values(marks).some((m) => compiled.sql.includes(m as string))) throw new Error(`compiledOnce: a placeholder ended up in the SQL text (${compiled.sql})`);
  return (values) => {
    const query = CompiledQuery.raw(compiled.sql, compiled.parameters.map((p, i) => (slots[i] === undefined ? p : values[slots[i]!])));
    return { compile: () => query };
  };
}
