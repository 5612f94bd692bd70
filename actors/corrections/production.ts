import type { Production } from '../../prompts/corrections/tasks.js';

/** The text the candidate produced: the written text, or their turns only (one per line). */
export function candidateText(p: Production): string {
  if (p.epreuve === 'EE') return p.texte;
  return p.transcript.filter((t) => t.speaker === 'candidate').map((t) => t.text.trim()).filter(Boolean).join('\n');
}

/**
 * Comparison form of a quote: NFC, typographic apostrophes and spaces folded, whitespace runs
 * collapsed. Models often straighten "’" or re-flow line breaks; the words must still be the
 * candidate's, character for character.
 */
export function normaliseQuote(s: string): string {
  return s
    .normalize('NFC')
    .replace(/[\u2019\u2018\u02bc`]/g, "'")
    .replace(/[\u00a0\u202f\u2009]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export function quoteOccursIn(extrait: string, text: string): boolean {
  const q = normaliseQuote(extrait);
  return q.length > 0 && normaliseQuote(text).includes(q);
}

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

/** Words as the exam counts them: letter/digit runs, apostrophe and hyphen compounds counted once. */
export function countWords(text: string): number {
  return text.match(WORD)?.length ?? 0;
}
