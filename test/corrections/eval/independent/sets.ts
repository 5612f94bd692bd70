import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * The independent evaluation sets (README.md here): hand-scored oral T2 transcripts, language-ID
 * texts and written productions. Parsing only; bench/grading-independent.ts sends them to the service.
 */

const Fait = z.object({ theme: z.string().min(1), keywords: z.array(z.string().min(1)).min(1), answer: z.string().min(1) }).strict();
const Turn = z.object({ speaker: z.enum(['candidate', 'interlocutor']), text: z.string().min(1), atMs: z.number().int().nonnegative().optional() }).strict();

export const ORAL_CATEGORIES = ['insufficient', 'A2', 'B1B2', 'C1', 'offtask', 'mixed'] as const;
const OralItem = z.object({
  id: z.string().min(1),
  category: z.enum(ORAL_CATEGORIES),
  score: z.number().min(0).max(20),
  subject: z.string().min(1),
  style: z.string(),
  consigne: z.string().min(1).optional(),
  faits: z.array(Fait).min(1).optional(),
  transcript: z.array(Turn).min(1),
  candidateWords: z.number().int().nonnegative(),
}).strict();
const LanguageItem = z.object({ id: z.string().min(1), kind: z.string().min(1), french: z.boolean(), texte: z.string().min(1) }).strict();
const WrittenItem = z.object({
  id: z.string().min(1),
  category: z.enum(['too_short', 'off_topic', 'on_task']),
  score: z.number().min(0).max(20),
  tache: z.enum(['EE_T1', 'EE_T2', 'EE_T3']),
  consigne: z.string().min(1),
  texte: z.string().min(1),
}).strict();

export type OralItem = z.infer<typeof OralItem>;
export type LanguageItem = z.infer<typeof LanguageItem>;
export type WrittenItem = z.infer<typeof WrittenItem>;

const file = <T extends z.ZodTypeAny>(item: T) => z.object({ note: z.string(), items: z.array(item).min(1) }).strict();

export function loadIndependent(dir: string): { oral: OralItem[]; language: LanguageItem[]; written: WrittenItem[] } {
  const read = (name: string): unknown => JSON.parse(readFileSync(join(dir, name), 'utf8'));
  return {
    oral: file(OralItem).parse(read('oral.json')).items,
    language: file(LanguageItem).parse(read('language.json')).items,
    written: file(WrittenItem).parse(read('written.json')).items,
  };
}
