import type { Fact, Subject } from './subjects.js';

/**
 * The offline interlocutor (text mode, no GEMINI_API_KEY): answers from the subject's fact sheet,
 * deterministically, obeying the §3 rules by construction — one fact per question (rule 5), the
 * fact's own 15–25-word answer (rule 4), no question back (rule 7), no closing formula (rule 10).
 * A vague question gets a brief answer that adds nothing (rule 6).
 */

function fold(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .replace(/[’']/g, ' ');
}

export const VAGUE_ANSWER = 'Je peux vous renseigner sur ce point précis, mais il faut me dire exactement ce que vous voulez savoir.';
export const GREETING_ANSWER = 'Bonjour, oui, c’est bien ici, je vous écoute et je peux répondre à vos questions sur notre offre.';
export const THANKS_ANSWER = 'Je vous en prie, c’est mon travail de renseigner les clients sur toutes les conditions de notre offre.';

function score(fact: Fact, folded: string): number {
  let s = 0;
  for (const k of fact.keywords) {
    const fk = fold(k);
    if (new RegExp(`(^|[^a-z0-9])${fk.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).test(folded)) s += fk.length > 4 ? 2 : 1;
  }
  return s;
}

export class FactSheetResponder {
  /** Facts already given: a repeated question gets the same fact again (consistency). */
  private readonly given = new Set<string>();

  constructor(private readonly subject: Pick<Subject, 'factSheet'>) {}

  answer(question: string): string {
    const folded = fold(question);
    let best: Fact | undefined;
    let bestScore = 0;
    for (const f of this.subject.factSheet) {
      const s = score(f, folded);
      if (s > bestScore) {
        best = f;
        bestScore = s;
      }
    }
    if (best) {
      this.given.add(best.theme);
      return best.answer;
    }
    if (/\b(bonjour|bonsoir|salut|allo)\b/.test(folded)) return GREETING_ANSWER;
    if (/\bmerci\b/.test(folded)) return THANKS_ANSWER;
    return VAGUE_ANSWER;
  }
}
