import { francAll } from 'franc-min';

/**
 * Is the production written in French? Two tests, cheap and measured (docs/corrections.md):
 * 1. script: under half of the letters in the Latin alphabet (Chinese, Arabic, Cyrillic…) → no;
 * 2. franc-min (trigram language identification, 82 languages): French must score at least
 *    FRENCH_MIN of the best language. A learner text full of errors, or with a few English words
 *    (« un lunch avec le manager »), still scores French first or very close; an English or Spanish
 *    text does not. Too short to tell (franc answers `und`) → accepted: the detectors will judge it.
 */

const FRENCH_MIN = 0.85;
const MIN_LENGTH = 20;

export interface LanguageVerdict {
  french: boolean;
  /** ISO 639-3 code of the language found (`und` when undetermined, `non-latin` for another script). */
  detected: string;
}

export function detectFrench(text: string): LanguageVerdict {
  const letters = text.match(/\p{L}/gu) ?? [];
  if (letters.length === 0) return { french: true, detected: 'und' };
  const latin = letters.filter((c) => /\p{Script=Latin}/u.test(c)).length;
  if (latin / letters.length < 0.5) return { french: false, detected: 'non-latin' };
  const ranked = francAll(text, { minLength: MIN_LENGTH });
  const best = ranked[0];
  if (!best || best[0] === 'und') return { french: true, detected: 'und' };
  const fra = ranked.find(([lang]) => lang === 'fra')?.[1] ?? 0;
  return { french: fra >= FRENCH_MIN * best[1], detected: best[0] };
}

export const NOT_FRENCH_MESSAGE = "La production n'est pas rédigée en français : elle n'est ni corrigée ni enregistrée. Rédigez votre texte en français (quelques mots d'une autre langue sont acceptés) et renvoyez-le.";
