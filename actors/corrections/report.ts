import { z } from 'zod';
import { ORAL_CRITERIA, WRITTEN_CRITERIA, type Critere, type OralCritere } from '../../prompts/taxonomy.js';
import type { OralTask, WrittenTask } from './contract.js';

/**
 * Report schemas: the one source of truth for validation, for the JSON instructions in the prompt
 * (`z.toJSONSchema`) and for the TypeScript types.
 *
 * Two layers: what the MODEL must return (prompts/corrections/modelOutput.ts, re-exported here),
 * and the REPORT palabre returns and stores (`reportSchema`), which adds what palabre computes
 * itself — global score, NCLC level, detector findings, provenance. Field names are French where they are the spec's words.
 */

export const WRITTEN_TASKS = ['EE_T1', 'EE_T2', 'EE_T3'] as const satisfies readonly WrittenTask[];
export const ORAL_TASKS = ['EO_T1', 'EO_T2', 'EO_T3'] as const satisfies readonly OralTask[];
export type Epreuve = 'EE' | 'EO';

/** Word limits of the written tasks (TCF Canada expression écrite). */
export const WORD_LIMITS: Readonly<Record<WrittenTask, { min: number; max: number }>> = {
  EE_T1: { min: 60, max: 120 },
  EE_T2: { min: 120, max: 150 },
  EE_T3: { min: 120, max: 180 },
};

// What the model must return is part of the prompt's contract: prompts/corrections/modelOutput.ts.
export {
  criterionScoreSchema,
  errorSchema,
  oralModelOutputSchema,
  writtenModelOutputSchema,
  type ModelOutput,
  type OralModelOutput,
  type ReportError,
  type WrittenModelOutput,
} from '../../prompts/corrections/modelOutput.js';
import { criterionScoreSchema, errorSchema, scoreSchema } from '../../prompts/corrections/modelOutput.js';

export const reportErrorSchema = errorSchema.extend({
  /** Who found it: the model, or a deterministic detector (named). */
  origine: z.enum(['modele', 'detecteur']),
  detecteur: z.string().optional(),
});
export type ReportErrorWithOrigin = z.infer<typeof reportErrorSchema>;

const reportCriterionSchema = criterionScoreSchema.extend({
  /** false only for phonologie while audio is not assessed (TD-08). */
  evalue: z.boolean(),
  poids: z.number().min(0).max(1),
  /** The figures behind the score (counts, measures, the offline formula), for a detail view; absent from older reports. */
  details: z.array(z.string()).optional(),
});

/**
 * Task completion (actors/corrections/ceiling.ts): whether the production does the task, the
 * highest global score it can then get, and the one sentence that says why. Absent from older reports.
 */
export const realisationSchema = z.object({
  niveau: z.enum(['complete', 'partielle', 'insuffisante', 'hors_sujet']),
  plafond: scoreSchema.nullable(),
  raison: z.string().nullable(),
  mesures: z.record(z.string(), z.number()),
});

export const nclcSchema = z.object({
  niveau: z.string().describe('NCLC level, e.g. "7", "10+", "<4"'),
  source: z.string(),
});

export const reportSchema = z.object({
  schema: z.literal('palabre.correction/1'),
  epreuve: z.enum(['EE', 'EO']),
  tache: z.enum([...WRITTEN_TASKS, ...ORAL_TASKS]),
  taxonomie: z.string(),
  /** Version of the grading prompt in force (prompts/corrections/gradingPrompt.ts); absent from reports stored before it was recorded. */
  promptVersion: z.string().optional(),
  criteres: z.record(z.string(), reportCriterionSchema),
  /** Weighted mean of the assessed criteria, 0–20, one decimal. */
  scoreGlobal: scoreSchema,
  nclc: nclcSchema,
  erreurs: z.array(reportErrorSchema),
  pointsForts: z.array(z.string()),
  conseils: z.array(z.string()).length(3),
  mots: z.number().int().min(0),
  source: z.enum(['model', 'detectors']),
  model: z.string().optional(),
  detectorsOnly: z.boolean(),
  detectorsOnlyReason: z.string().optional(),
  avertissements: z.array(z.string()),
  /** The offline engines that checked the text (absent from reports stored before it was recorded). */
  moteurs: z.array(z.enum(['detecteurs', 'grammalecte'])).optional(),
  realisation: realisationSchema.optional(),
});
export type Report = z.infer<typeof reportSchema>;

/**
 * IRCC's equivalence of TCF Canada expression orale / écrite scores (/20) with NCLC levels
 * (canada.ca, "Language test equivalency charts", TCF Canada). See docs/corrections.md.
 */
export const NCLC_SOURCE =
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
