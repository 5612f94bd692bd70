import { z } from 'zod';
import { ALL_CODES, WRITTEN_CRITERIA, type Critere } from '../taxonomy.js';

/**
 * What the model must return when it grades a production: the schema the prompt shows as JSON
 * (`z.toJSONSchema`, prompts/corrections/gradingPrompt.ts) and the one its answer is validated against
 * (actors/corrections/validate.ts). The report palabre builds on it is actors/corrections/report.ts.
 */

export const errorSchema = z.object({
  code: z.enum(ALL_CODES).describe('Un code de la taxonomie fermée, ou "autre"'),
  critere: z.enum(WRITTEN_CRITERIA).describe('Le critère auquel appartient le code'),
  description: z.string().nullable().describe('Description libre obligatoire si code = "autre", null sinon'),
  extrait: z.string().min(1).describe('Passage exact de la production, copié caractère pour caractère'),
  correction: z.string().describe('Forme corrigée ou conseil de correction'),
});

/** A mark out of 20. */
export const scoreSchema = z.number().min(0).max(20);
export const criterionScoreSchema = z.object({
  score: scoreSchema.describe('Note sur 20'),
  justification: z.string().min(1).max(600).describe('Justification courte (une ou deux phrases)'),
});

const modelCommon = {
  erreurs: z.array(errorSchema).max(60),
  points_forts: z.array(z.string().min(1)).min(1).max(5).describe('Points forts de la production'),
  conseils: z.array(z.string().min(1)).length(3).describe('Exactement trois conseils'),
};

/** What the model returns for a written production: the four taxonomy criteria. */
export const writtenModelOutputSchema = z.object({
  criteres: z.object(Object.fromEntries(WRITTEN_CRITERIA.map((c) => [c, criterionScoreSchema])) as Record<Critere, typeof criterionScoreSchema>),
  ...modelCommon,
});

/** What the model returns for an oral transcript: three oral criteria (phonologie is not asked: TD-08). */
export const oralModelOutputSchema = z.object({
  criteres: z.object({ coherence_cohesion: criterionScoreSchema, lexique: criterionScoreSchema, morphosyntaxe: criterionScoreSchema }),
  ...modelCommon,
});

export type WrittenModelOutput = z.infer<typeof writtenModelOutputSchema>;
export type OralModelOutput = z.infer<typeof oralModelOutputSchema>;
export type ModelOutput = WrittenModelOutput | OralModelOutput;

