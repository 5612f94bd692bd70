import { correctionMachine } from '../../machines/correction.js';

export type CorrectionActors = NonNullable<Parameters<typeof correctionMachine.provide>[0]['actors']>;

/** The `correction` chart with the service's actors: the corrections surface's one `.provide()`. */
export function wireCorrection(actors: CorrectionActors) {
  return correctionMachine.provide({ actors });
}
