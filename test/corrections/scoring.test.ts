import { describe, expect, it } from 'vitest';
import { assembleReport } from '../../actors/corrections/assemble.js';
import { buildContext, finding } from '../../actors/corrections/detectors/context.js';
import type { Production } from '../../prompts/corrections/tasks.js';
import { BASE, densityScores } from '../../actors/corrections/scoring.js';

const words = (n: number) => Array.from({ length: n }, (_, i) => `mot${i}`).join(' ');
const production = (texte: string): Production => ({ epreuve: 'EE', tache: 'EE_T3', consigne: 'Donnez votre opinion.', texte });

describe('written scores from the error density (no model)', () => {
  it('no error → at most BASE on every criterion; each criterion falls with its own weighted density', () => {
    const p = production(words(150));
    const clean = densityScores(p, [], 150);
    // 150 distinct words (full range) but no complex sentence: below BASE, lexicon highest.
    for (const c of Object.values(clean)) expect(c.score).toBeLessThanOrEqual(BASE);
    expect(clean.competence_lexicale!.score).toBeGreaterThan(clean.competence_grammaticale!.score);
    const ctx = buildContext(p);
    const errs = Array.from({ length: 9 }, (_, i) => finding('t', 'accord_sujet_verbe', ctx, i * 6, i * 6 + 4, 'x'));
    const dense = densityScores(p, errs, 150);
    // 9 grammar errors in 150 words = 6 per 100 words.
    expect(dense.competence_grammaticale!.score).toBeLessThan(BASE - 10);
    expect(dense.competence_lexicale!.score).toBe(clean.competence_lexicale!.score);
    expect(dense.coherence_cohesion!.score).toBeLessThan(clean.coherence_cohesion!.score); // a dense text reads less well
    // The figures go to the details; the justification is feedback.
    expect(dense.competence_grammaticale!.details.join(' ')).toContain('pour 100 mots');
    expect(dense.competence_grammaticale!.justification).not.toMatch(/pour 100 mots|gravité|×|=/);
    expect(dense.competence_grammaticale!.justification).toMatch(/^9 erreurs de grammaire ont été repérées/);
  });

  it('gravity: spelling slips weigh half a grammar error; the global score and NCLC follow', () => {
    const p: Production = { epreuve: 'EE', tache: 'EE_T1', consigne: 'Donnez votre opinion.', texte: words(100) }; // within T1's 60–120 words
    const ctx = buildContext(p);
    const spell = Array.from({ length: 4 }, (_, i) => finding('t', 'faute_orthographe_courante', ctx, i * 6, i * 6 + 4, 'x'));
    const gram = Array.from({ length: 4 }, (_, i) => finding('t', 'accord_adjectif_nom', ctx, i * 6, i * 6 + 4, 'x'));
    // Two of each, so that neither criterion reaches the floor.
    const none = densityScores(p, [], 100);
    const s = densityScores(p, spell.slice(0, 2), 100).competence_lexicale!.score;
    const g = densityScores(p, gram.slice(0, 2), 100).competence_grammaticale!.score;
    expect(none.competence_lexicale!.score - s).toBeCloseTo((none.competence_grammaticale!.score - g) / 2, 0);
    const clean = assembleReport({ production: p, findings: [], fallback: { reason: 'offline_provider' } });
    const dense = assembleReport({ production: p, findings: [...spell, ...gram], fallback: { reason: 'offline_provider' } });
    expect(clean.scoreGlobal - dense.scoreGlobal).toBeGreaterThanOrEqual(3);
    const level = (n: string) => (n === '<4' ? 3 : Number.parseInt(n, 10));
    expect(level(clean.nclc.niveau)).toBeGreaterThan(level(dense.nclc.niveau));
  });
});
