import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition, StateValue } from 'xstate';
import { getStateNodes } from 'xstate/graph';
import { transitionName } from '../../core/journal/transitions.js';

/**
 * The states and transitions of a machine, named so that a coverage report can be read by a
 * person and compared across machine instances (`machine.provide()` makes new node objects, so
 * names, not identities, are what is counted).
 */
export interface Inventory {
  states: string[];
  transitions: string[];
}

/**
 * Stable, readable name of a transition, e.g. `llmCall.attempting —xstate.error.actor.generate→ llmCall.decidingRetry`:
 * the journal's own naming (core/journal/transitions.ts), so that the transitions recorded
 * conversations took and those the model tests took join on the name.
 */
export const transitionId = transitionName;

function allNodes(machine: AnyStateMachine): AnyStateNode[] {
  return [machine.root, ...getStateNodes(machine.root)];
}

function transitionsOf(node: AnyStateNode): AnyTransitionDefinition[] {
  return [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
}

export function inventory(machine: AnyStateMachine): Inventory {
  return {
    states: getStateNodes(machine.root).map((n) => n.id),
    transitions: allNodes(machine).flatMap(transitionsOf).map(transitionId),
  };
}

/** State nodes active in a state value (root excluded). */
function activeNodes(machine: AnyStateMachine, value: StateValue): AnyStateNode[] {
  const nodes: AnyStateNode[] = [];
  const walk = (node: AnyStateNode, v: StateValue): void => {
    if (typeof v === 'string') {
      const child = node.states[v];
      if (child) nodes.push(child);
      return;
    }
    for (const [key, sub] of Object.entries(v)) {
      const child = node.states[key];
      if (!child) continue;
      nodes.push(child);
      if (sub !== undefined) walk(child, sub);
    }
  };
  walk(machine.root, value);
  return nodes;
}

/** Ids of the state nodes active in a state value (root excluded). */
export function activeStateIds(machine: AnyStateMachine, value: StateValue): string[] {
  return activeNodes(machine, value).map((n) => n.id);
}

/**
 * Event types the active states handle (the graph's "own event descriptors"), without the
 * wildcard ones (`*`, `foo.*`), which a spec must list explicitly as samples.
 */
export function handledEventTypes(machine: AnyStateMachine, value: StateValue): string[] {
  const types = new Set<string>();
  for (const node of [machine.root, ...activeNodes(machine, value)]) {
    for (const type of node.transitions.keys()) if (!type.endsWith('*')) types.add(type);
  }
  return [...types];
}

/** A node and its ancestors up to (excluding) the root. */
export function withAncestors(node: AnyStateNode): string[] {
  const ids: string[] = [];
  for (let n: AnyStateNode | undefined = node; n && n.parent; n = n.parent) ids.push(n.id);
  return ids;
}
