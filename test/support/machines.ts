import type { AnyStateMachine } from 'xstate';
import { allMachines } from '../../actors/serve.js';
import { loadMachine as loadFrom } from '../../core/machineRegistry.js';

/** Every production statechart by name: what `palabre machines` lists (the runtime's root and the surfaces'). */
export const MACHINES = await allMachines();

export function loadMachine(name: string): Promise<AnyStateMachine | undefined> {
  return loadFrom(MACHINES, name);
}
