import { describe, expect, it } from 'vitest';
import { WORD_LIMITS } from '../../../../actors/corrections/report.js';
import { loadOral, loadWritten } from './loadSets.js';

/**
 * The labelled grading sets parse and are well formed (README.md here). Parse only: nothing here
 * grades, so the held-out parts stay unseen by the grading code until their one run.
 */

const LEVELS = ['insuffisant', 'partiel', 'A2', 'B1', 'B2', 'C1', 'hors-sujet'];

describe.each(['tune', 'heldout', 'fresh', 'final'] as const)('oral part %s', (part) => {
  const items = loadOral(part);

  it('every transcript has a label /20, a known level, candidate turns and expanded fact answers', () => {
    for (const it of items) {
      expect(it.label, it.id).toBeGreaterThanOrEqual(0);
      expect(it.label, it.id).toBeLessThanOrEqual(20);
      expect(LEVELS, it.id).toContain(it.niveau);
      expect(it.transcript.some((t) => t.speaker === 'candidate' && t.text.trim()), it.id).toBe(true);
      expect(it.transcript.every((t) => !t.text.startsWith('@')), it.id).toBe(true);
      expect(it.sujet.faits.length, it.id).toBeGreaterThanOrEqual(6);
    }
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    // Every level but `partiel` in every part (the fresh part has none).
    for (const level of LEVELS.filter((l) => l !== 'partiel')) expect(items.some((i) => i.niveau === level), level).toBe(true);
  });
});

describe('written grading set', () => {
  it('labels /20, both parts, texts the right side of the word limits for their kind', () => {
    const items = loadWritten();
    expect(items.filter((w) => w.part === 'tune')).toHaveLength(8);
    expect(items.filter((w) => w.part === 'heldout')).toHaveLength(5);
    for (const w of items) {
      const words = w.texte.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)?.length ?? 0;
      if (w.kind === 'court') expect(words, w.id).toBeLessThan(WORD_LIMITS[w.tache].min / 2);
      else expect(words, w.id).toBeGreaterThanOrEqual(WORD_LIMITS[w.tache].min);
    }
  });
});
