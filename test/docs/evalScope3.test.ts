/**
 * The third scope set (test/docs/eval/rag-qa-scope-3.json), written blind and never run by its
 * author, is well formed before its single held-out run: the counts per kind and language, traps
 * spread over the three parts of the corpus, answerable questions naming files that exist in the
 * shared corpus and holding the evidence their note quotes, traps whose named things are still
 * absent from the corpus (a corpus update that starts answering a trap fails here, not silently in
 * the figures). Parse and grep only: no retrieval runs on the questions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSet, SET_NAMES, SETS } from '../../bench/support/ragSets.js';
import { corpus, corpusCandidates, corpusFiles, labelErrors, missingEvidence, PARTS, presentAbsences } from './scopeSetCorpus.js';

const FILE = 'test/docs/eval/rag-qa-scope-3.json';




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
    expect(labelErrors(items)).toEqual([]);
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
    expect(missingEvidence(of('answerable'), files)).toEqual([]);
    expect(presentAbsences(of('trap'), files)).toEqual([]);
  });
});
