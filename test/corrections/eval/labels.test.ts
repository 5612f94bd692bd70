import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_CODES } from '../../../prompts/taxonomy.js';
import { loadEval, type EvalPart } from './evaluate.js';

/**
 * The labelled evaluation set parses and its labels are well formed (README.md here). Parse only:
 * nothing here runs a checker, Grammalecte or the grading code on the texts, so the held-out parts
 * stay unseen by the engine until their one run.
 */

const PARTS: readonly Exclude<EvalPart, 'tuning'>[] = ['tune', 'heldout', 'fresh', 'final'];
const CODES = new Set<string>(ALL_CODES);
const LENGTH: Record<string, [number, number]> = { EE_T1: [60, 120], EE_T2: [120, 150], EE_T3: [120, 180] };

describe.each(PARTS)('eval part %s', (part) => {
  const items = loadEval(part);

  it('every label has a taxonomy code and quotes the text it spans, without stray markup', () => {
    for (const it of items) {
      const text = it.production.epreuve === 'EE' ? it.production.texte : '';
      expect(text, it.id).not.toMatch(/\[\[|\]\]/);
      for (const l of it.labels) {
        expect(CODES.has(l.code), `${it.id}: ${l.code}`).toBe(true);
        if (l.quote === '') continue; // a whole-text (global) code
        expect(text.slice(l.start, l.end), it.id).toBe(l.quote);
        expect(l.quote.trim(), `${it.id}: «${l.quote}»`).toBe(l.quote);
      }
    }
  });

  it('spans do not overlap and native controls carry no label', () => {
    for (const it of items) {
      const spans = it.labels.filter((l) => l.quote !== '').sort((a, b) => a.start - b.start);
      for (let i = 1; i < spans.length; i++) expect(spans[i]!.start, `${it.id}: «${spans[i]!.quote}»`).toBeGreaterThanOrEqual(spans[i - 1]!.end);
      if (it.natif) expect(it.labels, it.id).toEqual([]);
    }
  });
});

describe('the final part (third round)', () => {
  const items = loadEval('final');
  const raw = JSON.parse(readFileSync(new URL('./final.json', import.meta.url), 'utf8')) as Array<{ id: string; l1: string; niveau: string; tache: string }>;

  it('holds the counts README.md publishes', () => {
    const learners = items.filter((i) => !i.natif);
    expect(learners).toHaveLength(42);
    expect(items.filter((i) => i.natif)).toHaveLength(7);
    expect(items.reduce((n, i) => n + i.labels.length, 0)).toBe(372);
    expect(new Set(raw.filter((r) => r.l1 !== 'fr').map((r) => r.l1)).size).toBe(14);
    expect(items.every((i) => /^fin-(n?\d+)$/.test(i.id))).toBe(true);
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
  });

  it("keeps every production within its task's word range", () => {
    for (const it of items) {
      const [lo, hi] = LENGTH[it.production.tache]!;
      expect(it.words, it.id).toBeGreaterThanOrEqual(lo);
      expect(it.words, it.id).toBeLessThanOrEqual(hi);
    }
  });
});

it('no production id appears in two parts', () => {
  const ids = PARTS.flatMap((p) => loadEval(p).map((i) => i.id));
  expect(new Set(ids).size).toBe(ids.length);
});
