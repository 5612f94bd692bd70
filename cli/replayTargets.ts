import type { PalabreConfig } from '../actors/palabreConfig.js';
import type { ReplayLookup, ReplayTarget } from '../core/journal/replay.js';
import { loadMachine } from '../core/machineRegistry.js';
import { allMachines } from '../actors/serve.js';
import { BUILTIN_PROMPT } from '../prompts/skull/contextPrompt.js';
import { readPromptFile } from '../actors/skull/promptFile.js';

/**
 * Today's chart for a recorded conversation, by machine kind: the registry of the production
 * charts. Every function of the recorded input hands back its recorded results (core/journal).
 * What a conversation's input carried from a file is read again today, so that an edit of that
 * file shows in the replay: the Skull's prompt file (SKULL_PROMPT_FILE).
 */
export function replayTargets(config: Pick<PalabreConfig, 'SKULL_PROMPT_FILE'>): ReplayLookup {
  const inputs: Record<string, ReplayTarget['input']> = {
    skull: (recorded) => ({ ...(recorded as object), defaultPrompt: readPromptFile(config.SKULL_PROMPT_FILE, BUILTIN_PROMPT).text }),
  };
  let registry: ReturnType<typeof allMachines> | undefined;
  return async (kind) => {
    const machine = await loadMachine(await (registry ??= allMachines()), kind);
    if (!machine) return undefined;
    const input = Object.hasOwn(inputs, kind) ? inputs[kind] : undefined;
    return input ? { machine, input } : { machine };
  };
}
