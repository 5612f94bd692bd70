import { francAll } from 'franc-min';
import { FUNCTION_WORD_LANGUAGES, functionWordCounts, type FunctionWordLanguage } from './functionWords.js';

/**
 * Is the production written in French? French must be its most likely language
 * (docs/corrections.md#not-french, measured on test/corrections/eval/language/):
 * 1. script: under half of the letters in the Latin alphabet (Chinese, Arabic, Cyrillic…) → no;
 * 2. from SHORT words on, two witnesses must agree: franc-min (trigram identification, 82
 *    languages) ranks French first, and French has at least as many function words as any other
 *    language (functionWords.ts). A mostly-English text sprinkled with French words has French
 *    trigrams but English grammar words, so it is refused; a learner text full of errors or with
 *    a few English words (« un lunch avec le manager ») keeps its French grammar words. Trigrams
 *    can misjudge learner spelling, so French function words outnumbering every other language's
 *    twice over are enough on their own;
 * 3. under SHORT words trigrams are noise (« Je suis d'accord avec vous. » scores Serbian): the
 *    function words alone decide — refused only when another language has more of them than
 *    French; none at all (« Bonjour ! ») is too short to tell and accepted.
 */

const SHORT = 12;

export interface LanguageVerdict {
  french: boolean;
  /**
   * ISO 639-3 code of the language found: franc's first from SHORT words on, else the language
   * with most function words; `und` when undetermined, `non-latin` for another script.
   */
  detected: string;
}

function functionWordLeader(counts: Record<FunctionWordLanguage, number>): { lang: FunctionWordLanguage | 'und'; fra: number; otherMax: number } {
  let otherMax = 0;
  let lead: FunctionWordLanguage | 'und' = counts.fra > 0 ? 'fra' : 'und';
  let leadCount = counts.fra;
  for (const l of FUNCTION_WORD_LANGUAGES) {
    if (l === 'fra') continue;
    otherMax = Math.max(otherMax, counts[l]);
    if (counts[l] > leadCount) {
      lead = l;
      leadCount = counts[l];
    }
  }
  return { lang: lead, fra: counts.fra, otherMax };
}

export function detectFrench(text: string): LanguageVerdict {
  const letters = text.match(/\p{L}/gu) ?? [];
  if (letters.length === 0) return { french: true, detected: 'und' };
  const latin = letters.filter((c) => /\p{Script=Latin}/u.test(c)).length;
  if (latin / letters.length < 0.5) return { french: false, detected: 'non-latin' };
  const { words, counts } = functionWordCounts(text);
  const fw = functionWordLeader(counts);
  if (words < SHORT) return { french: fw.fra >= fw.otherMax, detected: fw.lang };
  const best = francAll(text)[0]?.[0] ?? 'und';
  const grammarFrench = fw.fra >= fw.otherMax;
  const french = grammarFrench && (best === 'fra' || fw.fra >= 2 * fw.otherMax);
  return { french, detected: best === 'und' ? fw.lang : best };
}

export const NOT_FRENCH_MESSAGE = "La production n'est pas rédigée en français : elle n'est ni corrigée ni enregistrée. Rédigez votre texte en français (quelques mots d'une autre langue sont acceptés) et renvoyez-le.";
