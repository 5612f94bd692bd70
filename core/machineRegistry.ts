import type { AnyStateMachine } from 'xstate';
import type { MachineRegistry, Surface } from './surfaceContract.js';

/**
 * The runtime's own chart (core/rootMachine.ts) and every machine the surfaces declare. Two
 * surfaces may declare the same shared machine (llmCall, breaker): one entry per name.
 */
export function machineRegistry(surfaces: readonly Pick<Surface, 'machines'>[]): MachineRegistry {
  const all: Record<string, () => Promise<AnyStateMachine>> = {
    root: () => import('./rootMachine.js').then((m) => m.rootMachine),
  };
  for (const s of surfaces) {
    for (const [name, load] of Object.entries(s.machines ?? {})) all[name] ??= load;
  }
  return all;
}

export async function loadMachine(registry: MachineRegistry, name: string): Promise<AnyStateMachine | undefined> {
  const load = Object.hasOwn(registry, name) ? registry[name] : undefined;
  return load ? load() : undefined;
}
