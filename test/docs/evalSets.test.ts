/**
 * The labelled question sets parse (schema of bench/support/ragSets.ts) and have unique ids, so a
 * malformed set fails here rather than half-way through a once-only held-out run. Parse-only: no
 * retrieval runs on the questions. Relevant paths of the sets on the shared corpus are checked by
 * `bench/rag-sets.ts`, which needs that corpus; the docs set's corpus is docs/, checked here.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEARNING_SETS, learningItems, learningSetOf } from '../../bench/support/ragData.js';
import { expectsRefusal, readSet, SET_NAMES, SETS } from '../../bench/support/ragSets.js';

describe('labelled question sets', () => {
  it.each(SET_NAMES)('%s parses, ids are unique, every question has a language', (name) => {
    const items = readSet(SETS[name]);
    expect(items.length).toBeGreaterThan(0);
    expect(new Set(items.map((x) => x.id)).size).toBe(items.length);
    expect(items.filter((x) => x.lang === undefined).map((x) => x.id)).toEqual([]);
  });

  it('the scope set: ≥ 40 unrelated questions per language, ≥ 40 traps over mcp, rgaa and rgpd, ≥ 60 answerable situations with their files, a held-out part of each kind', () => {
    const items = readSet(SETS.scope);
    const of = (kind: string, lang?: string) => items.filter((x) => x.kind === kind && (lang === undefined || x.lang === lang));
    expect(of('unrelated', 'fr').length).toBeGreaterThanOrEqual(40);
    expect(of('unrelated', 'en').length).toBeGreaterThanOrEqual(40);
    expect(of('trap').length).toBeGreaterThanOrEqual(40);
    expect(new Set(of('trap').map((x) => x.part))).toEqual(new Set(['mcp', 'rgaa', 'rgpd']));
    expect(of('answerable').length).toBeGreaterThanOrEqual(60);
    expect(items.filter((x) => x.kind === undefined).map((x) => x.id)).toEqual([]);
    expect(of('answerable').filter((x) => x.relevant.length === 0 || x.out_of_scope).map((x) => x.id)).toEqual([]);
    expect([...of('unrelated'), ...of('trap')].filter((x) => x.relevant.length > 0 || !expectsRefusal(x)).map((x) => x.id)).toEqual([]);
    for (const kind of ['unrelated', 'trap', 'answerable']) {
      const held = of(kind).filter((x) => x.split === 'heldout').length;
      expect(held / of(kind).length).toBeGreaterThan(0.3);
      expect(of(kind).filter((x) => x.split !== 'heldout' && x.split !== 'tune')).toEqual([]);
    }
  });

  it('the fifth set is all held out, answerable questions name relevant files and out-of-scope ones none', () => {
    const items = readSet(SETS.fifth);
    expect(new Set(items.map((x) => x.split))).toEqual(new Set(['heldout']));
    const answerable = items.filter((x) => !expectsRefusal(x));
    expect(answerable.length).toBeGreaterThanOrEqual(80);
    expect(items.length - answerable.length).toBeGreaterThanOrEqual(30);
    expect(answerable.filter((x) => (x.keywords ?? []).length === 0).map((x) => x.id)).toEqual([]);
  });

  // The sixth to ninth sets: all held out, their own id prefixes, answerable questions name
  // corpus paths and 1–3 keywords, out-of-scope ones none. Existence of the paths is checked
  // against the shared corpus by bench/rag-sets.ts; here their shape (the CNIL guide's LICENSE has
  // no extension).
  it.each([
    { name: 'sixth', answer: 'sa', out: 'so', answerable: 130, outOfScope: 50 },
    { name: 'seventh', answer: 'ta', out: 'to', answerable: 150, outOfScope: 50 },
    { name: 'eighth', answer: 'ua', out: 'uo', answerable: 80, outOfScope: 40 },
    { name: 'ninth', answer: 'va', out: 'vo', answerable: 150, outOfScope: 70 },
  ] as const)('the $name set is all held out, $answer/$out ids, answerable questions name corpus paths and out-of-scope ones none', (set) => {
    const items = readSet(SETS[set.name]);
    expect(new Set(items.map((x) => x.split))).toEqual(new Set(['heldout']));
    const answerable = items.filter((x) => !expectsRefusal(x));
    const outOfScope = items.filter((x) => expectsRefusal(x));
    expect(answerable.length).toBeGreaterThanOrEqual(set.answerable);
    expect(outOfScope.length).toBeGreaterThanOrEqual(set.outOfScope);
    expect(answerable.filter((x) => !new RegExp(`^${set.answer}\\d{3}$`).test(x.id)).map((x) => x.id)).toEqual([]);
    expect(outOfScope.filter((x) => !new RegExp(`^${set.out}\\d{3}$`).test(x.id) || (x.keywords ?? []).length > 0).map((x) => x.id)).toEqual([]);
    expect(answerable.filter((x) => (x.keywords ?? []).length === 0 || (x.keywords ?? []).length > 3).map((x) => x.id)).toEqual([]);
    const badPath = answerable.flatMap((x) => x.relevant.filter((p) => !/^(rgpd|rgaa|mcp)\/[^/]+\.(md|mdx|json|txt)$|^rgpd\/LICENSE$/.test(p)).map((p) => `${x.id}: ${p}`));
    expect(badPath).toEqual([]);
  });

  it.each(['sixth', 'seventh', 'eighth', 'ninth'] as const)('no question of the %s set repeats one of another set word for word', (name) => {
    const others = new Set(SET_NAMES.filter((n) => n !== name).flatMap((n) => readSet(SETS[n]).map((x) => x.question.trim().toLowerCase())));
    const own = readSet(SETS[name]).map((x) => x.question.trim().toLowerCase());
    expect(own.filter((q) => others.has(q))).toEqual([]);
    expect(new Set(own).size).toBe(own.length);
  });

  it("the docs set's relevant paths exist under docs/", () => {
    const missing = readSet(SETS.docs).flatMap((x) => x.relevant.filter((p) => !existsSync(join('docs', p))));
    expect(missing).toEqual([]);
  });

  // The tuning data of the learning benches (every set already run as held-out): one fold per
  // set, each question labelled with its set, so `--by-set` leaves out what it says it leaves out.
  it('the tuning data holds every spent set once, each question in the fold of its own set', () => {
    const items = learningItems();
    const sets = learningSetOf();
    expect(sets).toHaveLength(items.length);
    expect(new Set(sets)).toEqual(new Set(LEARNING_SETS.map((_, i) => i)));
    expect(LEARNING_SETS.at(-1)).toBe('eighth');
    const eighth = readSet(SETS.eighth).map((x) => x.id);
    expect(items.filter((_, i) => sets[i] === LEARNING_SETS.indexOf('eighth')).map((x) => x.id)).toEqual(eighth);
    expect(items.filter((_, i) => sets[i] === LEARNING_SETS.indexOf('seventh')).map((x) => x.id)).toEqual(readSet(SETS.seventh).map((x) => x.id));
    expect(items.filter((_, i) => sets[i] === LEARNING_SETS.indexOf('sixth')).map((x) => x.id)).toEqual(readSet(SETS.sixth).map((x) => x.id));
  });
});
