import { ORAL_CRITERIA, WRITTEN_CRITERIA, type Critere, type OralCritere } from '../../prompts/taxonomy.js';
import type { Epreuve, WrittenTask } from '../../prompts/corrections/tasks.js';

/**
 * The figures of a report: word limits, NCLC levels, criteria weights and the global score. The
 * schemas are in two layers: what the MODEL must return (prompts/corrections/modelOutput.ts),
 * and the REPORT palabre returns and stores (machines/correctionReport.ts), which adds what
 * palabre computes itself.
 */

/** Word limits of the written tasks (TCF Canada expression écrite). */
export const WORD_LIMITS: Readonly<Record<WrittenTask, { min: number; max: number }>> = {
  EE_T1: { min: 60, max: 120 },
  EE_T2: { min: 120, max: 150 },
  EE_T3: { min: 120, max: 180 },
};

/**
 * IRCC's equivalence of TCF Canada expression orale / écrite scores (/20) with NCLC levels
 * (canada.ca, "Language test equivalency charts", TCF Canada). See docs/corrections.md.
 */
const NCLC_SOURCE =
  'IRCC, Language test equivalency charts — TCF Canada, expression orale/écrite (/20): https://www.canada.ca/en/immigration-refugees-citizenship/services/immigrate-canada/express-entry/documents/language-requirements/test-equivalency-charts.html';
const NCLC_TABLE: ReadonlyArray<[number, string]> = [
  [16, '10+'], [14, '9'], [12, '8'], [10, '7'], [7, '6'], [6, '5'], [4, '4'],
];

/** The NCLC level of a global score; scores are floored to the integer the exam reports. */
export function nclcOf(score: number): { niveau: string; source: string } {
  const s = Math.floor(score);
  for (const [min, level] of NCLC_TABLE) if (s >= min) return { niveau: level, source: NCLC_SOURCE };
  return { niveau: '<4', source: NCLC_SOURCE };
}

/** Criteria and weights of a report: written = four taxonomy criteria; oral = 25 % each incl. phonologie. */
export function criteriaOf(epreuve: Epreuve): ReadonlyArray<{ id: Critere | OralCritere; poids: number; evalue: boolean }> {
  if (epreuve === 'EE') return WRITTEN_CRITERIA.map((id) => ({ id, poids: 0.25, evalue: true }));
  return ORAL_CRITERIA.map((id) => ({ id, poids: 0.25, evalue: id !== 'phonologie' }));
}

export const PHONOLOGIE_NOT_ASSESSED =
  "Non évaluée (TD-08) : la phonologie demande l'audio brut ; note fixée à 0 et exclue de la note globale.";

/**
 * Global score = weighted mean over ASSESSED criteria. Phonologie (0, not assessed) is excluded
 * rather than averaged in, so an oral report is not capped at 15/20 by a criterion nobody graded.
 */
export function globalScore(criteres: Record<string, { score: number; poids: number; evalue: boolean }>): number {
  let sum = 0;
  let weight = 0;
  for (const c of Object.values(criteres)) {
    if (!c.evalue) continue;
    sum += c.score * c.poids;
    weight += c.poids;
  }
  return weight === 0 ? 0 : Math.round((sum / weight) * 10) / 10;
}
