import { z } from 'zod';
import { criterionScoreSchema, errorSchema, scoreSchema } from '../prompts/corrections/modelOutput.js';
import { ORAL_TASKS, WRITTEN_TASKS } from '../prompts/corrections/tasks.js';

/**
 * The report palabre returns and stores: the one source of truth for validation and for the
 * TypeScript types. It adds to what the model returns (prompts/corrections/modelOutput.ts) what
 * palabre computes itself: global score, NCLC level, detector findings, provenance. Field names
 * are French where they are the spec's words. It lives beside the correction chart, which carries
 * the report from the model to the store.
 */

/** Why a report comes from the detectors alone. */
export type FallbackReason = 'offline_provider' | 'model_unreachable' | 'invalid_after_repair' | 'timeout';

const reportErrorSchema = errorSchema.extend({
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
const realisationSchema = z.object({
  niveau: z.enum(['complete', 'partielle', 'insuffisante', 'hors_sujet']),
  plafond: scoreSchema.nullable(),
  raison: z.string().nullable(),
  mesures: z.record(z.string(), z.number()),
});

const nclcSchema = z.object({
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
