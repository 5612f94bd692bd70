import { wellFormed } from './grammalecte/sidecar.js';
import type { Production } from '../../prompts/corrections/tasks.js';

/**
 * The candidate's text as every engine reads it: lone surrogates (a broken emoji pasted or cut by
 * a transcriber) replaced by U+FFFD, and NFC, so that « é » typed as e + accent and as one
 * character are the same word to the detectors, Grammalecte and the model, and quotes match.
 */
function normaliseText(text: string): string {
  return wellFormed(text).normalize('NFC');
}

export function normaliseProduction(p: Production): Production {
  if (p.epreuve === 'EE') return { ...p, texte: normaliseText(p.texte), consigne: normaliseText(p.consigne) };
  return { ...p, consigne: normaliseText(p.consigne), transcript: p.transcript.map((t) => ({ ...t, text: normaliseText(t.text) })) };
}
