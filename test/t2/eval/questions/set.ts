import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CLOSING_ANSWER, GREETING_ANSWER, NO_INFORMATION_ANSWER, VAGUE_ANSWER, backgroundOf } from '../../../../actors/t2/factSheetResponder.js';
import { t2OfflineResponder } from '../../../../actors/t2/offlineResponder.js';
import { SEED_SUBJECTS } from '../../../../actors/t2/seedSubjects.js';
import { subjectInputSchema, type Fact } from '../../../../actors/t2/subjects.js';

/**
 * The labelled question set of the offline interlocutor: one dialogue per seeded subject and
 * part, each candidate turn labelled (before anything ran on it) with the fact theme it asks, or
 * `none` (the sheet has no answer), `greeting`, `closing`.
 */
export const QUESTION_PARTS = ['tune', 'heldout'] as const;
export type QuestionPart = (typeof QUESTION_PARTS)[number];

const dialogueSchema = z.object({
  subject: z.string(),
  turns: z.array(z.object({ q: z.string().min(1), expect: z.string().min(2) })).min(1),
});
export type Dialogue = z.infer<typeof dialogueSchema>;

export function loadDialogues(part: QuestionPart): Dialogue[] {
  return z.array(dialogueSchema).parse(JSON.parse(readFileSync(new URL(`./${part}.json`, import.meta.url), 'utf8')));
}

export function seededSubject(id: string) {
  const input = SEED_SUBJECTS.find((s) => s.id === id);
  if (!input) throw new Error(`no seeded subject ${id}`);
  return subjectInputSchema.parse(input);
}

/** What a reply of the offline interlocutor gave, in the labels' vocabulary. */
export function labelOfReply(reply: string, facts: Fact[]): string {
  const fact = facts.find((f) => reply.includes(f.answer));
  if (fact) return fact.theme;
  if (reply === GREETING_ANSWER) return 'greeting';
  if (reply === CLOSING_ANSWER) return 'closing';
  if (reply === NO_INFORMATION_ANSWER || reply === VAGUE_ANSWER) return 'none';
  return `? ${reply}`;
}

export interface Played {
  subject: string;
  q: string;
  expect: string;
  got: string;
  reply: string;
}

/** Plays one dialogue through the offline provider's T2 responder, history included. */
export function play(d: Dialogue): Played[] {
  const s = seededSubject(d.subject);
  const hints = { factSheet: s.factSheet, background: backgroundOf(s) };
  const messages: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  const out: Played[] = [];
  for (const t of d.turns) {
    messages.push({ role: 'user', content: t.q });
    const reply = t2OfflineResponder({ model: 'offline', messages: [...messages], maxTokens: 120, purpose: 't2', offlineHints: hints });
    if (typeof reply !== 'string') throw new Error('the T2 responder answers synchronously');
    messages.push({ role: 'assistant', content: reply });
    out.push({ subject: d.subject, q: t.q, expect: t.expect, got: labelOfReply(reply, s.factSheet), reply });
  }
  return out;
}
