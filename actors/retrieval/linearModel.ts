import { z } from 'zod';

/**
 * The shape the learned models of the docs assistant share (confidence.ts, rerank.ts): a weight
 * per named feature over standardised values, as the benches that fit them write it (JSON, with
 * the figures they were kept on). `fields` adds each model's own entries.
 */
export function linearModelSchema<F extends readonly [string, ...string[]], S extends z.ZodRawShape>(features: F, fields: S) {
  return z
    .object({
      version: z.literal(1),
      trainedOn: z.string(),
      features: z.array(z.enum(features)).min(1),
      /** Standardisation: (x − mean) / scale, per feature. */
      mean: z.array(z.number()),
      scale: z.array(z.number().positive()),
      weights: z.array(z.number()),
      cv: z.record(z.string(), z.unknown()),
      ...fields,
    })
    .refine((m) => consistent(m as unknown as LinearModel<string>), 'one mean, scale and weight per feature');
}

interface LinearModel<F extends string> {
  features: F[];
  mean: number[];
  scale: number[];
  weights: number[];
}

const consistent = (m: LinearModel<string>): boolean => m.mean.length === m.features.length && m.scale.length === m.features.length && m.weights.length === m.features.length;

/** Σ weight · (x − mean) / scale over the model's features. */
export function linearScore<F extends string>(model: LinearModel<F>, x: Record<F, number>): number {
  let s = 0;
  model.features.forEach((f, i) => {
    s += (model.weights[i]! * (x[f] - model.mean[i]!)) / model.scale[i]!;
  });
  return s;
}
