import { describe, expect, it } from 'vitest';
import { SEED_SUBJECTS } from '../../../../actors/t2/seedSubjects.js';
import { loadIndependent, ORAL_CATEGORIES } from '../independent/sets.js';

/**
 * The second independent set parses with the same loader as the first and is well formed. No
 * grading here: the grades are a measurement printed by the bench, not a test assertion.
 */
const sets = loadIndependent(import.meta.dirname);
const candidateText = (it: (typeof sets.oral)[number]): string =>
  it.transcript.filter((t) => t.speaker === 'candidate').map((t) => t.text).join(' ');

describe('second independent evaluation set', () => {
  it('ids are unique across the three files and distinct from the first set', () => {
    const first = loadIndependent(`${import.meta.dirname}/../independent`);
    const ids = [...sets.oral, ...sets.language, ...sets.written].map((i) => i.id);
    const firstIds = new Set([...first.oral, ...first.language, ...first.written].map((i) => i.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => firstIds.has(id))).toEqual([]);
  });

  it('oral: 40 transcripts in the planned categories, on invented subjects with a consigne and a fact sheet of 5 to 7 facts', () => {
    const counts = Object.fromEntries(ORAL_CATEGORIES.map((c) => [c, sets.oral.filter((i) => i.category === c).length]));
    expect(counts).toEqual({ insufficient: 7, A2: 7, B1B2: 10, C1: 7, offtask: 5, mixed: 4 });
    const seeds = new Set(SEED_SUBJECTS.map((s) => s.id));
    const subjects = new Map<string, string>();
    for (const it of sets.oral) {
      expect(seeds.has(it.subject), `${it.id}: subject must be new`).toBe(false);
      expect(it.consigne, it.id).toBeTruthy();
      expect(it.faits?.length ?? 0, it.id).toBeGreaterThanOrEqual(5);
      expect(it.faits?.length ?? 0, it.id).toBeLessThanOrEqual(7);
      // One consigne and one sheet per subject, whichever item carries it.
      const sheet = JSON.stringify([it.consigne, it.faits]);
      expect(subjects.get(it.subject) ?? sheet, it.id).toBe(sheet);
      subjects.set(it.subject, sheet);
      expect(it.transcript.some((t) => t.speaker === 'candidate'), it.id).toBe(true);
      const words = candidateText(it).match(/[\p{L}\p{N}_'’-]+/gu) ?? [];
      expect(it.candidateWords, it.id).toBe(words.length);
    }
    expect(subjects.size).toBe(8);
  });

  it('oral: scores follow the category bands the examiner used', () => {
    const band: Record<(typeof ORAL_CATEGORIES)[number], [number, number]> = {
      insufficient: [0, 6], A2: [5, 10], B1B2: [10, 16], C1: [15, 20], offtask: [0, 8], mixed: [3, 10],
    };
    for (const it of sets.oral) {
      const [lo, hi] = band[it.category];
      expect(it.score, it.id).toBeGreaterThanOrEqual(lo);
      expect(it.score, it.id).toBeLessThanOrEqual(hi);
    }
  });

  it('oral: speech-recogniser style on about half, timestamps increasing, insufficient ones under a minute and full ones 4 to 5½ minutes', () => {
    const asr = sets.oral.filter((i) => i.style.startsWith('asr'));
    expect(asr.length).toBeGreaterThanOrEqual(18);
    for (const it of asr) expect(candidateText(it), it.id).toBe(candidateText(it).toLowerCase());
    const timed = sets.oral.filter((i) => i.transcript.some((t) => t.atMs !== undefined));
    expect(timed.length).toBeGreaterThanOrEqual(15);
    for (const it of timed) {
      const at = it.transcript.map((t) => t.atMs);
      expect(at.every((a) => a !== undefined), `${it.id}: every turn or none`).toBe(true);
      const ms = at as number[];
      for (let k = 1; k < ms.length; k++) expect(ms[k]!, it.id).toBeGreaterThan(ms[k - 1]!);
      const last = ms[ms.length - 1]!;
      if (it.category === 'insufficient') expect(last, it.id).toBeLessThan(60_000);
      if (it.category === 'B1B2' || it.category === 'C1') {
        expect(last, it.id).toBeGreaterThanOrEqual(240_000);
        expect(last, it.id).toBeLessThanOrEqual(330_000);
      }
    }
    expect(timed.some((i) => i.category === 'insufficient')).toBe(true);
  });

  it('written: 10 productions over the three tasks and categories; on-task ones within the task limits', () => {
    expect(sets.written.length).toBe(10);
    expect(new Set(sets.written.map((i) => i.tache))).toEqual(new Set(['EE_T1', 'EE_T2', 'EE_T3']));
    expect(new Set(sets.written.map((i) => i.category))).toEqual(new Set(['too_short', 'off_topic', 'on_task']));
    const limits = { EE_T1: [60, 120], EE_T2: [120, 150], EE_T3: [120, 180] } as const;
    for (const it of sets.written) {
      const n = it.texte.split(/\s+/u).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
      const [lo, hi] = limits[it.tache];
      if (it.category === 'on_task') {
        expect(n, it.id).toBeGreaterThanOrEqual(lo);
        expect(n, it.id).toBeLessThanOrEqual(hi + 10);
      }
      if (it.category === 'too_short') expect(n, it.id).toBeLessThan(lo);
    }
  });

  it('language: both labels present', () => {
    expect(new Set(sets.language.map((i) => i.french))).toEqual(new Set([true, false]));
  });
});
