import type { Production } from '../../../prompts/corrections/tasks.js';
import { buildContext, type Detector, type Finding } from './context.js';
import { enonceCopie, longueur, paragraphes, salutationCloture, tutoiement } from './form.js';
import { negation } from './grammar.js';
import { abreviationsSms, anglicisme, connecteursRepetes, homophones, repetitionLexicale } from './lexicalChecks.js';
import { majuscules, phraseTropLongue, pointAbsent, ponctuation } from './punctuation.js';
import { orthographe } from './spelling.js';

/** Every deterministic detector, in report order. None calls a model. */
export const DETECTORS: readonly Detector[] = [
  longueur, salutationCloture, paragraphes, enonceCopie, tutoiement, abreviationsSms,
  connecteursRepetes, repetitionLexicale, anglicisme, homophones, orthographe, majuscules,
  negation, pointAbsent, phraseTropLongue, ponctuation,
];

/** Runs every detector that applies to the production; findings sorted by position. */
export function runDetectors(production: Production, detectors: readonly Detector[] = DETECTORS): Finding[] {
  const ctx = buildContext(production);
  const out: Finding[] = [];
  for (const d of detectors) if (d.applies(production)) out.push(...d.detect(ctx));
  return out.sort((a, b) => a.start - b.start);
}
