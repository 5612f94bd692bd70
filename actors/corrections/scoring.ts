import { oralCritereOf, type Critere } from '../../prompts/taxonomy.js';
import type { Finding } from './detectors/context.js';
import type { Production } from './production.js';
import { criteriaOf } from './report.js';

/**
 * Scores without a model: from the density of the errors found, weighted by their gravity.
 *
 *   weighted errors per 100 words, per criterion:  d_c = 100 × Σ gravity(e) / max(words, 60)
 *   language density (lexicon + grammar):           d_L = d_lexique + d_grammaire
 *   score_c = clamp(BASE − SLOPE × (d_c + SPILL_c × d_L), FLOOR, BASE)        rounded to 0.5
 *
 * BASE is 17, not 20: without a model the content, the ideas and the richness of the language are
 * not assessed, so a text without any detected error is "very good", not "perfect". SPILL makes
 * dense language errors weigh on the other criteria too (a text hard to read is less coherent and
 * serves its task less well): 0.5 for cohérence, 0.25 for adéquation. The constants were fitted on
 * the tuning part of the labelled set (docs/corrections.md).
 */

/** The constants of the formula: `bench/corrections-calibrate.ts` tries other values on the tuning data. */
export interface ScoringParams {
  base: number;
  floor: number;
  /** Points lost per weighted error per 100 words (the curve's slope at a clean text). */
  slope: number;
  /** `linear` falls straight to the floor; `exp` bends towards it and never reaches it. */
  curve: 'linear' | 'exp';
  spill: Readonly<Record<string, number>>;
  gravity: Readonly<Record<string, number>>;
  /** Texts shorter than this count as this long (a few errors in 30 words are not 10 per 100). */
  minWords: number;
}

export const BASE = 17;
export const FLOOR = 3;
export const SLOPE = 2;
export const SPILL: Readonly<Record<string, number>> = { coherence_cohesion: 0.5, adequation_tache: 0.25, lexique: 0, morphosyntaxe: 0 };

/** Gravity of a code (1 = an ordinary grammar error). Codes not listed weigh 1. */
export const GRAVITY: Readonly<Record<string, number>> = {
  faute_orthographe_courante: 0.5, majuscules_incorrectes: 0.5, point_absent: 0.5, ponctuation_incorrecte: 0.5, virgule_absence: 0.25, virgule_exces: 0.25,
  anglicisme: 0.75, negation_incomplete: 0.75, repetition_lexicale: 0.5, connecteurs_repetes: 0.5, phrase_trop_longue: 0.5,
  salutation_absente: 1.5, cloture_absente: 1.5, paragraphes_absents: 1.5, structure_absente: 1.5, tutoiement_inadequat: 1.5, enonce_copie: 2,
  abreviations_sms: 1, longueur_excessive: 1, longueur_insuffisante: 0, // the length cap (10/20) handles it
};

export const SCORING: ScoringParams = { base: BASE, floor: FLOOR, slope: SLOPE, curve: 'linear', spill: SPILL, gravity: GRAVITY, minWords: 60 };

/** Score of one criterion for a weighted density `x` (errors per 100 words), before rounding. */
export function curve(x: number, p: ScoringParams): number {
  if (p.curve === 'exp') return p.floor + (p.base - p.floor) * Math.exp((-p.slope * x) / (p.base - p.floor));
  return Math.min(p.base, Math.max(p.floor, p.base - p.slope * x));
}

const LANGUAGE = new Set(['competence_lexicale', 'competence_grammaticale', 'lexique', 'morphosyntaxe']);

export function densityScores(production: Production, findings: Finding[], words: number, p: ScoringParams = SCORING): Record<string, { score: number; justification: string; density: number }> {
  const weight = new Map<string, number>();
  const count = new Map<string, number>();
  for (const f of findings) {
    const key = production.epreuve === 'EE' ? f.critere : oralCritereOf(f.critere as Critere, f.code);
    weight.set(key, (weight.get(key) ?? 0) + (p.gravity[f.code] ?? 1));
    count.set(key, (count.get(key) ?? 0) + 1);
  }
  const per100 = (w: number) => (100 * w) / Math.max(words, p.minWords);
  let language = 0;
  for (const [k, w] of weight) if (LANGUAGE.has(k)) language += per100(w);
  const out: Record<string, { score: number; justification: string; density: number }> = {};
  for (const c of criteriaOf(production.epreuve)) {
    if (!c.evalue) continue;
    const d = per100(weight.get(c.id) ?? 0);
    const spill = p.spill[c.id] ?? 0;
    const score = Math.round(curve(d + spill * language, p) * 2) / 2;
    const n = count.get(c.id) ?? 0;
    out[c.id] = {
      score,
      density: d,
      justification: `Estimation automatique sans modèle : ${n} erreur(s) relevée(s) pour ce critère (${d.toFixed(1)} points de gravité pour 100 mots${spill && language ? `, plus ${Math.round(spill * 100)} % de la densité d'erreurs de langue, ${language.toFixed(1)}` : ''}) ; le contenu et la richesse n'ont pas été évalués.`,
    };
  }
  return out;
}
