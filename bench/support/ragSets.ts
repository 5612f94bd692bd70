/**
 * The labelled question sets of the docs assistant (test/docs/eval/), read and validated once for
 * bench/rag-quality.ts and bench/rag-tune.ts.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';

export const SETS = {
  unseen: 'test/docs/eval/rag-qa-unseen.json',
  fresh: 'test/docs/eval/rag-qa-fresh.json',
  docs: 'test/docs/eval/rag-qa-docs.json',
  third: 'test/docs/eval/rag-qa-third.json',
  fourth: 'test/docs/eval/rag-qa-fourth.json',
  fifth: 'test/docs/eval/rag-qa-fifth.json',
  sixth: 'test/docs/eval/rag-qa-sixth.json',
  seventh: 'test/docs/eval/rag-qa-seventh.json',
  eighth: 'test/docs/eval/rag-qa-eighth.json',
  ninth: 'test/docs/eval/rag-qa-ninth.json',
  scope: 'test/docs/eval/rag-qa-scope.json',
} as const;
export type SetName = keyof typeof SETS;
/** The set names, for a `--set` option (a new set needs only its line in SETS). */
export const SET_NAMES = Object.keys(SETS) as [SetName, ...SetName[]];

const itemSchema = z.array(
  z.object({
    id: z.string(),
    split: z.enum(['tune', 'heldout', 'fresh']).optional(),
    lang: z.enum(['fr', 'en']).optional(),
    question: z.string(),
    relevant: z.array(z.string()),
    keywords: z.array(z.string()).optional(),
    out_of_scope: z.boolean().optional(),
    note: z.string().optional(),
    /** rag-qa-scope.json: what the question is (bench/rag-scope.ts reports each kind apart). */
    kind: z.enum(['unrelated', 'trap', 'answerable']).optional(),
    /** Which part of the corpus a trap or an answerable question is about. */
    part: z.string().optional(),
  }),
);
export type EvalItem = z.infer<typeof itemSchema>[number];

export const readSet = (path: string): EvalItem[] => itemSchema.parse(JSON.parse(readFileSync(resolve(path), 'utf8')));

/** The tuning data: every set already run once (now spent) and the third set's tuning half. */
export const tuningItems = (): EvalItem[] => [
  ...readSet(SETS.unseen),
  ...readSet(SETS.fresh),
  ...readSet(SETS.third).filter((x) => x.split === 'tune'),
];

export const expectsRefusal = (it: EvalItem): boolean => it.out_of_scope === true || it.relevant.length === 0;
