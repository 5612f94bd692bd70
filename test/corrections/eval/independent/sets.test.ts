import { describe, expect, it } from 'vitest';
import { SEED_SUBJECTS } from '../../../../actors/t2/seedSubjects.js';
import { loadIndependent, ORAL_CATEGORIES } from './sets.js';

/**
 * The independent sets parse and are well formed. No grading here: the grades are a measurement,
 * printed by bench/grading-independent.ts, not a test assertion.
 */
const sets = loadIndependent(import.meta.dirname);

describe('independent evaluation sets', () => {
  it('ids are unique across the three files', () => {
    const ids = [...sets.oral, ...sets.language, ...sets.written].map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('oral: at least 36 T2 transcripts covering every category, each with a candidate turn and a consigne and fact sheet (seed or invented)', () => {
    expect(sets.oral.length).toBeGreaterThanOrEqual(36);
    const seeds = new Set(SEED_SUBJECTS.map((s) => s.id));
    for (const cat of ORAL_CATEGORIES) expect(sets.oral.filter((i) => i.category === cat).length, cat).toBeGreaterThanOrEqual(5);
    for (const it of sets.oral) {
      expect(it.transcript.some((t) => t.speaker === 'candidate'), it.id).toBe(true);
      if (seeds.has(it.subject)) expect(it.consigne ?? it.faits, it.id).toBeUndefined();
      else expect(Boolean(it.consigne && it.faits), `${it.id}: invented subject needs consigne and faits`).toBe(true);
      const words = it.transcript.filter((t) => t.speaker === 'candidate').map((t) => t.text).join(' ').match(/[\p{L}\p{N}_'’-]+/gu) ?? [];
      expect(it.candidateWords, it.id).toBe(words.length);
    }
    expect(sets.oral.filter((i) => !seeds.has(i.subject)).length).toBeGreaterThanOrEqual(5);
  });

  it('language: both labels present, and written: each task and category present', () => {
    expect(sets.language.length).toBeGreaterThanOrEqual(12);
    expect(new Set(sets.language.map((i) => i.french))).toEqual(new Set([true, false]));
    expect(new Set(sets.written.map((i) => i.category))).toEqual(new Set(['too_short', 'off_topic', 'on_task']));
    expect(sets.written.length).toBeGreaterThanOrEqual(6);
  });
});
