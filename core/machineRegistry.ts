import type { AnyStateMachine } from 'xstate';

/**
 * Every production statechart of palabre, by name. `palabre machines`, the docs images and the
 * /inspect page read this list; the model-based coverage report checks it covers every machine.
 * Lazy so that exporting one machine does not load the others' modules.
 */
export const MACHINES: Readonly<Record<string, () => Promise<AnyStateMachine>>> = {
  root: () => import('../machines/root.js').then((m) => m.rootMachine),
  llmCall: () => import('../machines/llmCall.js').then((m) => m.llmCallMachine),
  breaker: () => import('../machines/breaker.js').then((m) => m.breakerMachine),
  skull: () => import('../machines/skull.js').then((m) => m.skullMachine),
  skullFleet: () => import('../machines/skullFleet.js').then((m) => m.skullFleetMachine),
  chat: () => import('../machines/chat.js').then((m) => m.chatMachine),
  correction: () => import('../machines/correction.js').then((m) => m.correctionMachine),
  t2live: () => import('../machines/t2live.js').then((m) => m.t2liveMachine),
  t2Instance: () => import('../machines/t2Instance.js').then((m) => m.t2InstanceMachine),
  t2Takeover: () => import('../machines/t2Takeover.js').then((m) => m.t2TakeoverMachine),
};

export function machineNames(): string[] {
  return Object.keys(MACHINES);
}

export async function loadMachine(name: string): Promise<AnyStateMachine | undefined> {
  const load = Object.hasOwn(MACHINES, name) ? MACHINES[name] : undefined;
  return load ? load() : undefined;
}
