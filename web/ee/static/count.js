// Pure helpers of the written-practice page: the word count (the same rule as the server's
// countWords in actors/corrections/production.ts, so the counter and the report agree), the
// counter's sentence against the task's limits, and the timer's clock and notices.

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

/** Words as the exam counts them: letter/digit runs, apostrophe and hyphen compounds counted once. */
export function countWords(text) {
  return (String(text).match(WORD) || []).length;
}

const plural = (n, word) => `${n} ${word}${n > 1 ? 's' : ''}`;

/** Where `words` stands against the task's limits, as a state and a sentence for the candidate. */
export function countState(words, min, max) {
  if (words === 0) return { state: 'empty', text: 'Commencez à écrire.' };
  if (words < min) return { state: 'short', text: `${plural(words, 'mot')} : encore ${plural(min - words, 'mot')} au moins pour atteindre le minimum de la tâche (${min}).` };
  if (words > max) return { state: 'long', text: `${plural(words, 'mot')} : ${plural(words - max, 'mot')} de trop, le maximum de la tâche est ${max}. Raccourcissez votre texte.` };
  return { state: 'ok', text: `${plural(words, 'mot')} : la longueur est dans les limites de la tâche (${min} à ${max}).` };
}

/** m:ss, never negative. */
export function formatClock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** The notice due at `left` ms of `total`: at 5 minutes (long tasks), 1 minute and the end. */
export function timeNotice(left, total) {
  if (left <= 0) return 'Le temps conseillé est écoulé : relisez-vous et envoyez votre texte.';
  if (left <= 60_000) return 'Plus qu’une minute.';
  if (total > 10 * 60_000 && left <= 5 * 60_000) return 'Plus que cinq minutes.';
  return '';
}
