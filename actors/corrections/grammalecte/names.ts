/**
 * A capitalised word that opens a sentence and that Grammalecte does not know: a first name
 * (« Reza ne nous a pas caché sa joie », « Oksana m'avait prévenue ») or a misspelling
 * (« Tranquile », « Americaines », « Malheureusment »)? Grammalecte's dictionary lists many first
 * names (`:M1`), not all. A learner's misspelling is a near form of a real word — an accent, a
 * doubled letter or an apostrophe away, or one letter away in a long word — and Grammalecte
 * suggests that word; a name's suggestions are unrelated words (Reza → Rez, Nez, Mesa…).
 */

const fold = (w: string) => w.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/['’\s-]/g, '').replace(/(\p{L})\1/gu, '$1');

function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return d[b.length]!;
}

/** Whether a near form of `word` is among the suggestions (then `word` is a misspelling). */
export function isNearForm(word: string, suggestion: string): boolean {
  const a = fold(word);
  const b = fold(suggestion);
  if (a === b) return true;
  return word.length >= 7 && distance(a, b) <= 1;
}

export function isLikelyName(word: string, suggestions: readonly string[]): boolean {
  return !suggestions.some((s) => isNearForm(word, s));
}
