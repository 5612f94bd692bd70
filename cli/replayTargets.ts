import type { ReplayLookup } from '../core/journal/index.js';
import { loadMachine } from '../core/machineRegistry.js';

/**
 * Today's chart for a recorded conversation, by machine kind: the registry of the production
 * charts. Every function of the recorded input hands back its recorded results (core/journal).
 */
export const replayTargets: ReplayLookup = async (kind) => {
  const machine = await loadMachine(kind);
  return machine ? { machine } : undefined;
};
