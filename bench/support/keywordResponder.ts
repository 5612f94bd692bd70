import type { Fact } from '../../actors/t2/subjects.js';

/**
 * The baseline the offline interlocutor is measured against: the first matcher palabre shipped —
 * the fact whose keywords appear most (as word prefixes) in the question, else a fixed greeting,
 * thank-you or vague answer. Kept here only to print its figures beside today's.
 */
function fold(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(/\p{Diacritic}/gu, '').replace(/[’']/g, ' ');
}

export function keywordAnswer(facts: Fact[], question: string): string {
  const folded = fold(question);
  let best: Fact | undefined;
  let bestScore = 0;
  for (const f of facts) {
    let s = 0;
    for (const k of f.keywords) {
      const fk = fold(k);
      if (new RegExp(`(^|[^a-z0-9])${fk.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).test(folded)) s += fk.length > 4 ? 2 : 1;
    }
    if (s > bestScore) {
      best = f;
      bestScore = s;
    }
  }
  if (best) return best.answer;
  if (/\b(bonjour|bonsoir|salut|allo)\b/.test(folded)) return 'greeting';
  if (/\bmerci\b/.test(folded)) return 'closing';
  return 'none';
}
