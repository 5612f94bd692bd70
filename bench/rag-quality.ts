/**
 * Retrieval quality on the eval set, and the guard's refusal precision/recall at a threshold.
 *   CORPUS_DIR=../shared/corpus npx tsx bench/rag-quality.ts [--threshold T] [--eval path]
 * T defaults to the configured CHAT_SCORE_THRESHOLD (env, or the schema's default).
 * Prints one JSON line, the quality table, a threshold sweep and per-question details.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { Retriever } from '../actors/retrieval/retriever.js';
import { evaluate, sweep, type EvalItem } from '../actors/retrieval/quality.js';
import { configShape } from '../core/config/schema.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const corpus = resolve(process.env.CORPUS_DIR ?? '../shared/corpus');
const evalPath = resolve(opt('eval') ?? '../shared/eval/rag-qa-dev.json');
const threshold = Number(opt('threshold') ?? configShape.CHAT_SCORE_THRESHOLD.parse(process.env.CHAT_SCORE_THRESHOLD));

const itemSchema = z.array(z.object({ id: z.string(), question: z.string(), relevant: z.array(z.string()), out_of_scope: z.boolean().optional() }));
const items: EvalItem[] = itemSchema.parse(JSON.parse(readFileSync(evalPath, 'utf8')));

const retriever = new Retriever({ root: corpus });
await retriever.sync();
const result = evaluate(retriever, items, threshold);
console.log(JSON.stringify({ loadavg1m: +loadavg()[0]!.toFixed(1), bench: 'rag-quality', corpus, threshold, passages: retriever.passageCount, ...result.metrics }));
console.table([result.metrics]);
console.table(sweep(retriever, items, [0.2, 0.25, 0.3, 0.33, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6]));
console.table(result.details);
