/**
 * The labelled question sets parse (schema of bench/support/ragSets.ts) and have unique ids, so a
 * malformed set fails here rather than half-way through a once-only held-out run. Parse-only: no
 * retrieval runs on the questions. Relevant paths of the sets on the shared corpus are checked by
 * `bench/rag-sets.ts`, which needs that corpus; the docs set's corpus is docs/, checked here.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectsRefusal, readSet, SET_NAMES, SETS } from '../../bench/support/ragSets.js';

describe('labelled question sets', () => {
  it.each(SET_NAMES)('%s parses, ids are unique, every question has a language', (name) => {
    const items = readSet(SETS[name]);
    expect(items.length).toBeGreaterThan(0);
    expect(new Set(items.map((x) => x.id)).size).toBe(items.length);
    expect(items.filter((x) => x.lang === undefined).map((x) => x.id)).toEqual([]);
  });

  it('the fifth set is all held out, answerable questions name relevant files and out-of-scope ones none', () => {
    const items = readSet(SETS.fifth);
    expect(new Set(items.map((x) => x.split))).toEqual(new Set(['heldout']));
    const answerable = items.filter((x) => !expectsRefusal(x));
    expect(answerable.length).toBeGreaterThanOrEqual(80);
    expect(items.length - answerable.length).toBeGreaterThanOrEqual(30);
    expect(answerable.filter((x) => (x.keywords ?? []).length === 0).map((x) => x.id)).toEqual([]);
  });

  it("the docs set's relevant paths exist under docs/", () => {
    const missing = readSet(SETS.docs).flatMap((x) => x.relevant.filter((p) => !existsSync(join('docs', p))));
    expect(missing).toEqual([]);
  });
});
