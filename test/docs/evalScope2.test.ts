/**
 * The second scope set (test/docs/eval/rag-qa-scope-2.json), written blind and never run by its
 * author, is well formed before its single held-out run: the counts per kind and language, traps
 * spread over the three parts of the corpus, answerable questions naming files that exist in the
 * shared corpus and holding the evidence their note quotes, traps whose named things are still
 * absent from the corpus (a corpus update that starts answering a trap fails here, not silently in
 * the figures). Parse and grep only: no retrieval runs on the questions.
 */
import { describe, expect, it } from 'vitest';
import { readSet, SET_NAMES, SETS } from '../../bench/support/ragSets.js';
import { corpus, corpusCandidates, corpusFiles, labelErrors, missingEvidence, PARTS, presentAbsences } from './scopeSetCorpus.js';

const FILE = 'test/docs/eval/rag-qa-scope-2.json';




describe('the second scope set (blind, held out)', () => {
  const items = readSet(FILE);
  const of = (kind: string, lang?: string) => items.filter((x) => x.kind === kind && (lang === undefined || x.lang === lang));

  it('parses with sd ids, all held out, 50 + 50 unrelated, 45 traps (15 per part), 60 answerable situations in both languages', () => {
    expect(new Set(items.map((x) => x.id)).size).toBe(items.length);
    expect(items.filter((x) => !/^sd\d{3}$/.test(x.id)).map((x) => x.id)).toEqual([]);
    expect(new Set(items.map((x) => x.split))).toEqual(new Set(['heldout']));
    expect(items.filter((x) => x.lang === undefined || x.kind === undefined).map((x) => x.id)).toEqual([]);
    expect(of('unrelated', 'fr')).toHaveLength(50);
    expect(of('unrelated', 'en')).toHaveLength(50);
    expect(of('trap')).toHaveLength(45);
    for (const part of PARTS) expect(of('trap').filter((x) => x.part === part)).toHaveLength(15);
    expect(of('answerable')).toHaveLength(60);
    for (const part of PARTS) expect(of('answerable').filter((x) => x.part === part).length).toBeGreaterThanOrEqual(18);
    expect(of('answerable', 'fr').length).toBeGreaterThanOrEqual(20);
    expect(of('answerable', 'en').length).toBeGreaterThanOrEqual(20);
    expect(items).toHaveLength(205);
  });

  it('refusals are labelled as such and answerable questions name files of their own part', () => {
    expect(labelErrors(items)).toEqual([]);
  });

  it('no question repeats one of the other sets word for word, nor one of its own', () => {
    const others = new Set(SET_NAMES.flatMap((n) => readSet(SETS[n]).map((x) => x.question.trim().toLowerCase())));
    const own = items.map((x) => x.question.trim().toLowerCase());
    expect(own.filter((q) => others.has(q))).toEqual([]);
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
