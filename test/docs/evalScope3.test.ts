/**
 * The third scope set (test/docs/eval/rag-qa-scope-3.json), written blind and never run by its
 * author, is well formed before its single held-out run: the counts per kind and language, traps
 * spread over the three parts of the corpus, answerable questions naming files that exist in the
 * shared corpus and holding the evidence their note quotes, traps whose named things are still
 * absent from the corpus (a corpus update that starts answering a trap fails here, not silently in
 * the figures). Parse and grep only: no retrieval runs on the questions.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSet, SET_NAMES, SETS } from '../../bench/support/ragSets.js';

const FILE = 'test/docs/eval/rag-qa-scope-3.json';
const PARTS = ['mcp', 'rgaa', 'rgpd'] as const;

// The shared corpus sits next to the repository (../shared/corpus from the main checkout,
// ../../shared/corpus from a worktree); CORPUS_DIR wins when set.
const corpusCandidates = [process.env.CORPUS_DIR, '../shared/corpus', '../../shared/corpus'].filter((d): d is string => d !== undefined && d.trim() !== '');
const corpus = corpusCandidates.map((d) => resolve(d)).find((d) => existsSync(d) && statSync(d).isDirectory());

const corpusFiles = (dir: string): Map<string, string> => {
  const files = new Map<string, string>();
  for (const part of PARTS) {
    for (const name of readdirSync(join(dir, part))) {
      const path = join(dir, part, name);
      if (statSync(path).isFile()) files.set(`${part}/${name}`, readFileSync(path, 'utf8'));
    }
  }
  return files;
};

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Two questions are the same one when only case, spacing or punctuation differ.
const normalise = (q: string): string => q.normalize('NFC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

const questionsOf = (data: unknown): string[] =>
  Array.isArray(data)
    ? data.flatMap((x: unknown) => (typeof x === 'object' && x !== null && typeof (x as { question?: unknown }).question === 'string' ? [(x as { question: string }).question] : []))
    : [];

describe('the third scope set (blind, held out)', () => {
  const items = readSet(FILE);
  const of = (kind: string, lang?: string) => items.filter((x) => x.kind === kind && (lang === undefined || x.lang === lang));

  it('parses with se ids, all held out, 55 + 55 unrelated, 54 traps (18 per part), 80 answerable situations in both languages', () => {
    expect(new Set(items.map((x) => x.id)).size).toBe(items.length);
    expect(items.filter((x) => !/^se\d{3}$/.test(x.id)).map((x) => x.id)).toEqual([]);
    expect(new Set(items.map((x) => x.split))).toEqual(new Set(['heldout']));
    expect(items.filter((x) => x.lang === undefined || x.kind === undefined).map((x) => x.id)).toEqual([]);
    expect(of('unrelated', 'fr')).toHaveLength(55);
    expect(of('unrelated', 'en')).toHaveLength(55);
    expect(of('trap')).toHaveLength(54);
    for (const part of PARTS) expect(of('trap').filter((x) => x.part === part)).toHaveLength(18);
    expect(of('answerable')).toHaveLength(80);
    for (const part of PARTS) expect(of('answerable').filter((x) => x.part === part).length).toBeGreaterThanOrEqual(25);
    expect(of('answerable', 'fr').length).toBeGreaterThanOrEqual(40);
    expect(of('answerable', 'en').length).toBeGreaterThanOrEqual(30);
    expect(items).toHaveLength(244);
  });

  it('refusals are labelled as such and answerable questions name files of their own part', () => {
    expect([...of('unrelated'), ...of('trap')].filter((x) => x.relevant.length > 0 || x.out_of_scope !== true).map((x) => x.id)).toEqual([]);
    expect(of('answerable').filter((x) => x.relevant.length === 0 || x.out_of_scope === true).map((x) => x.id)).toEqual([]);
    expect(of('answerable').flatMap((x) => x.relevant.filter((p) => !p.startsWith(`${x.part}/`)).map((p) => `${x.id}: ${p}`))).toEqual([]);
  });

  it('no question repeats one of the other sets (up to case, spacing and punctuation), nor one of its own', () => {
    // Every other set file next to this one counts, registered in the bench or not, so a set added
    // later by someone else is covered too; only the question strings are read.
    const siblings = readdirSync(dirname(FILE))
      .filter((n) => n.endsWith('.json') && join(dirname(FILE), n) !== FILE)
      .flatMap((n) => questionsOf(JSON.parse(readFileSync(join(dirname(FILE), n), 'utf8')) as unknown));
    const registered = SET_NAMES.filter((n) => resolve(SETS[n]) !== resolve(FILE)).flatMap((n) => readSet(SETS[n]).map((x) => x.question));
    const others = new Set([...siblings, ...registered].map(normalise));
    expect(others.size).toBeGreaterThan(0);
    const own = items.map((x) => normalise(x.question));
    expect(items.filter((x) => others.has(normalise(x.question))).map((x) => x.id)).toEqual([]);
    expect(new Set(own).size).toBe(own.length);
  });

  it('against the shared corpus: relevant files exist and hold their evidence, the traps\' named things are absent', () => {
    expect(corpus, `shared corpus not found (tried ${corpusCandidates.join(', ')}); set CORPUS_DIR to it`).toBeDefined();
    const files = corpusFiles(corpus as string);
    expect(of('answerable').flatMap((x) => x.relevant.filter((p) => !files.has(p)).map((p) => `${x.id}: ${p}`))).toEqual([]);
    // note: "evidence: /REGEX/ occurs in FILE" — the regex that was grepped, case-insensitive.
    const noEvidence = of('answerable').filter((x) => {
      const m = /^evidence: \/(.+)\/ occurs in (.+)$/.exec(x.note ?? '');
      return m === null || m[2] !== x.relevant[0] || !new RegExp(m[1] as string, 'i').test(files.get(m[2] as string) ?? '');
    });
    expect(noEvidence.map((x) => x.id)).toEqual([]);
    // note: "… (checked absent from the corpus: a, b, part:c, part:file-prefix:d)": each string is
    // searched as a whole word, case-insensitive unless written in capitals (or "Wave"), over the
    // whole corpus or, with a "part:" prefix, over that part (or that part's files starting so).
    const found = of('trap').flatMap((x) => {
      const m = /\(checked absent from the corpus: (.+)\)$/.exec(x.note ?? '');
      if (m === null) return [`${x.id}: no absence list`];
      return (m[1] as string).split(', ').flatMap((entry) => {
        const bits = entry.split(':');
        const scoped = bits.length > 1 && (PARTS as readonly string[]).includes(bits[0] as string);
        const scope = !scoped ? '' : bits.length > 2 ? `${bits[0]}/${bits[1]}` : `${bits[0]}/`;
        const needle = scoped ? bits.slice(bits.length > 2 ? 2 : 1).join(':') : entry;
        const flags = needle === needle.toUpperCase() || needle === 'Wave' || needle === 'Canva' ? '' : 'i';
        const re = new RegExp(`(?<![A-Za-z0-9_])${escape(needle)}(?![A-Za-z0-9])`, flags);
        return [...files].filter(([path, text]) => path.startsWith(scope) && re.test(text)).map(([path]) => `${x.id}: "${needle}" in ${path}`);
      });
    });
    expect(found).toEqual([]);
  });
});
