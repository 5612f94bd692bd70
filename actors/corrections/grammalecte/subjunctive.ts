import { finding, type DetectorContext, type Finding } from '../detectors/context.js';
import { isDeterminer, isVerb, lexWords, type LexWord } from './lexWords.js';
import type { Lex } from './sidecar.js';

/**
 * The indicative where French requires the subjunctive: « il faut que tout le monde vient »,
 * « je voudrais que les parents font attention », « bien que la ville investit ».
 *
 * Grammalecte's mood rules catch the commonest pairs (« il faut que tu fais »); with a noun
 * subject or an irregular verb they often stay silent. The rule: a trigger that always governs the
 * subjunctive, then « que », a subject (a personal pronoun, a name, or a short noun phrase), the
 * optional « ne » and object pronouns, and a verb whose every reading is indicative or
 * conditional — never a form that can be subjunctive too (« mangent », « prennent »: regular
 * forms are the same in both moods, so they are not reported).
 */

/** Words (before « que ») that always call for the subjunctive. Conjunctions are checked as pairs. */
const VERB_TRIGGERS = new Set([
  'faut', 'faudrait', 'faudra', 'fallait', 'fallu',
  'veux', 'veut', 'voulons', 'voulez', 'veulent', 'voudrais', 'voudrait', 'voudrions', 'voudriez', 'voudraient', 'voulais', 'voulait', 'voulaient',
  'souhaite', 'souhaites', 'souhaitons', 'souhaitez', 'souhaitent', 'souhaiterais', 'souhaiterait', 'souhaitais', 'souhaitait',
  'aimerais', 'aimerait', 'aimerions', 'aimeriez', 'aimeraient',
  'préfère', 'préfères', 'préférons', 'préférez', 'préfèrent', 'préférerais', 'préférerait',
  'exige', 'exigent', 'exigeons', 'exigez', 'doute', 'doutes',
]);
const CONJUNCTIONS = new Set(['bien', 'pour', 'afin', 'avant', 'sans', 'condition', 'ce' /* jusqu'à ce que */, 'peur']);
/** « il est important que », « c'est dommage que », « je suis content que ». */
const ADJECTIVE_TRIGGERS = /^(?:important|nécessaire|essentiel|indispensable|urgent|possible|impossible|normal|préférable|dommage|temps|souhaitable|naturel|content|contente|contents|contentes|heureux|heureuse|heureuses|ravi|ravie|ravis|ravies|triste|tristes|désolé|désolée|désolés|désolées)$/;
const BETWEEN_TRIGGER_AND_QUE = new Set(['pas', 'plus', 'vraiment', 'absolument', 'beaucoup', 'tellement', 'très']);
const SUBJECT_PRONOUN = new Set(['je', "j'", 'tu', 'il', 'elle', 'on', 'nous', 'vous', 'ils', 'elles', 'ce', "c'", 'cela', 'ça', 'chacun', 'chacune', 'personne']);
const OBJECT_PRONOUN = new Set(['ne', "n'", 'me', "m'", 'te', "t'", 'se', "s'", 'le', 'la', "l'", 'les', 'lui', 'leur', 'nous', 'vous', 'y', 'en']);

function triggerBefore(words: LexWord[], q: number): string | undefined {
  let i = q - 1;
  while (i >= 0 && BETWEEN_TRIGGER_AND_QUE.has(words[i]!.lower)) i--;
  const w = words[i];
  if (!w || w.punct) return undefined;
  if (VERB_TRIGGERS.has(w.lower)) return w.lower;
  if (ADJECTIVE_TRIGGERS.test(w.lower)) {
    // Only as the attribute of « il est / c'est / je suis… » (« un rendez-vous important que… » is a relative clause).
    const v = words[i - 1]?.lower ?? '';
    const v2 = words[i - 2]?.lower ?? '';
    const copula = /^(?:est|serait|était|suis|sommes|sont|es|êtes)$/;
    if (copula.test(v) || (BETWEEN_TRIGGER_AND_QUE.has(v) && copula.test(v2)) || v === 'dommage') return w.lower;
    return undefined;
  }
  if (i === q - 1 && CONJUNCTIONS.has(w.lower)) {
    // « jusqu'à ce que », not « à ce que » (« je la consacre à ce que je repoussais »).
    if (w.lower === 'ce') return words[i - 1]?.lower === 'à' && /^jusqu/.test(words[i - 2]?.lower ?? '') ? "jusqu'à ce" : undefined;
    if (w.lower === 'condition') return words[i - 1]?.lower === 'à' ? 'à condition' : undefined;
    if (w.lower === 'peur') return /^(?:ai|as|a|avons|avez|ont|avais|avait)$/.test(words[i - 1]?.lower ?? '') ? 'peur' : undefined;
    return w.lower;
  }
  return undefined;
}

/** Index of the verb after the subject that starts at `s`, or -1. */
function verbAfterSubject(words: LexWord[], s: number): number {
  const first = words[s];
  if (!first || first.punct) return -1;
  let i: number;
  if (SUBJECT_PRONOUN.has(first.lower)) i = s + 1;
  else if (first.lower === 'tout' && words[s + 1]?.lower === 'le' && words[s + 2]?.lower === 'monde') i = s + 3;
  else if (first.tags.some(isDeterminer) || /^\p{Lu}/u.test(first.text)) {
    // A short noun phrase or a name: up to three words, none of them a finite-only verb.
    i = s + 1;
    while (i < s + 4 && words[i] && !words[i]!.punct && words[i]!.tags.some((t) => t.startsWith(':N') || t.includes(':A'))) {
      if (isFiniteIndicativeOnly(words[i]!)) break;
      i++;
    }
  } else return -1;
  while (words[i] && OBJECT_PRONOUN.has(words[i]!.lower)) i++;
  return words[i] ? i : -1;
}

/** A verb form that can only be indicative or conditional (« vient », « font », « investit », « sont »). */
function isFiniteIndicativeOnly(w: LexWord): boolean {
  const verbs = w.tags.filter(isVerb);
  if (!verbs.length) return false;
  if (verbs.some((t) => /:S[pq]/.test(t))) return false;
  return verbs.some((t) => /:I[pqsf]|:K/.test(t));
}

export function subjunctiveFindings(ctx: DetectorContext, lex: Lex): Finding[] {
  const words = lexWords(ctx.text, lex);
  const out: Finding[] = [];
  for (let q = 1; q < words.length; q++) {
    const que = words[q]!;
    if (que.lower !== 'que' && que.lower !== "qu'") continue;
    const trigger = triggerBefore(words, q);
    if (!trigger) continue;
    const v = verbAfterSubject(words, q + 1);
    if (v < 0) continue;
    const verb = words[v]!;
    if (!isFiniteIndicativeOnly(verb)) continue;
    out.push(finding('grammalecte:subjonctif', 'subjonctif_absent', ctx, verb.start, verb.end, `Après « ${trigger} que », le verbe se met au subjonctif (« ${verb.text} » est à l'indicatif).`));
  }
  return out;
}
