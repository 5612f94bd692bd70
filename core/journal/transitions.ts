import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition, StateValue } from 'xstate';
import type { JournalStep } from './step.js';

/**
 * Which transitions of a chart recorded conversations took. A step records the event and the
 * state reached, not the transition (guards and context are not in the journal), so the
 * transition is inferred: for each active leaf before the step, walking up to the root as XState
 * does, the first transition on the step's event whose targets are active after it (through the
 * eventless `always` transitions of a transient target), or a targetless one whose source is still
 * active. The model tests name transitions with `transitionName` too (test/harness/inventory.ts), so
 * the two lists join on the name.
 */

function guardLabel(t: AnyTransitionDefinition): string {
  const g: unknown = t.guard;
  if (g === undefined) return '';
  if (typeof g === 'string') return ` [${g}]`;
  if (typeof g === 'function') return ` [${g.name || 'inline guard'}]`;
  if (typeof g === 'object' && g !== null && 'type' in g) return ` [${String((g as { type: unknown }).type)}]`;
  return ' [guard]';
}

function baseLabel(t: AnyTransitionDefinition): string {
  const targets = t.target && t.target.length ? t.target.map((n) => n.id).join(', ') : '(stays)';
  return `${t.source.id} —${t.eventType === '' ? 'always' : t.eventType}${guardLabel(t)}→ ${targets}`;
}

function siblings(t: AnyTransitionDefinition): AnyTransitionDefinition[] {
  return t.eventType === '' ? (t.source.always ?? []) : (t.source.transitions.get(t.eventType) ?? []);
}

/** `skull.turn.idle —ai.request→ skull.turn.responding`, `#n` when two transitions read the same. */
export function transitionName(t: AnyTransitionDefinition): string {
  const label = baseLabel(t);
  const same = siblings(t).filter((s) => baseLabel(s) === label);
  return same.length > 1 ? `${label} #${same.indexOf(t)}` : label;
}

function descendants(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states as Record<string, AnyStateNode>).flatMap((c) => [c, ...descendants(c)]);
}

function ownTransitions(node: AnyStateNode): AnyTransitionDefinition[] {
  return [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
}

/** Every transition of the chart, in document order. */
export function chartTransitions(machine: AnyStateMachine): AnyTransitionDefinition[] {
  return [machine.root, ...descendants(machine.root)].flatMap(ownTransitions);
}

/** The state nodes active in a state value (root excluded). */
function activeNodes(machine: AnyStateMachine, value: unknown): AnyStateNode[] {
  const nodes: AnyStateNode[] = [];
  const walk = (node: AnyStateNode, v: unknown): void => {
    if (typeof v === 'string') {
      const child = (node.states as Record<string, AnyStateNode>)[v];
      if (child) nodes.push(child);
      return;
    }
    if (typeof v !== 'object' || v === null) return;
    for (const [key, sub] of Object.entries(v as Record<string, StateValue>)) {
      const child = (node.states as Record<string, AnyStateNode>)[key];
      if (!child) continue;
      nodes.push(child);
      walk(child, sub);
    }
  };
  walk(machine.root, value);
  return nodes;
}

/** The transitions that lead from `before` to `after` on an event of type `type` (see the file's comment). */
function inferTransitions(machine: AnyStateMachine, before: unknown, type: string, after: unknown): AnyTransitionDefinition[] {
  const was = activeNodes(machine, before);
  const now = new Set(activeNodes(machine, after).map((n) => n.id));
  const wasIds = new Set(was.map((n) => n.id));
  const leaves = was.filter((n) => !Object.values(n.states as Record<string, AnyStateNode>).some((c) => wasIds.has(c.id)));
  if (leaves.length === 0) leaves.push(machine.root);
  const taken: AnyTransitionDefinition[] = [];
  // A target that is not active after the step may be transient: follow its `always` transitions.
  const reach = (node: AnyStateNode, depth: number): AnyTransitionDefinition[] | undefined => {
    if (now.has(node.id)) return [];
    if (depth > 8) return undefined;
    for (const t of node.always ?? []) {
      const rest = leadsTo(t, depth + 1);
      if (rest) return [t, ...rest];
    }
    return undefined;
  };
  const leadsTo = (t: AnyTransitionDefinition, depth: number): AnyTransitionDefinition[] | undefined => {
    if (!t.target || t.target.length === 0) return now.has(t.source.id) || t.source === machine.root ? [] : undefined;
    const chain: AnyTransitionDefinition[] = [];
    for (const target of t.target) {
      const rest = reach(target, depth);
      if (!rest) return undefined;
      chain.push(...rest);
    }
    return chain;
  };
  for (const leaf of leaves) {
    for (let node: AnyStateNode | undefined = leaf; node; node = node.parent) {
      const found = (node.transitions.get(type) ?? []).map((t) => ({ t, chain: leadsTo(t, 0) })).find((c) => c.chain);
      if (found) {
        for (const t of [found.t, ...found.chain!]) if (!taken.includes(t)) taken.push(t);
        break;
      }
    }
  }
  return taken;
}

/** How often recorded conversations took each transition, by name. */
export interface TakenCount {
  /** Conversations that took it at least once. */
  conversations: number;
  /** Times it was taken, over all of them. */
  times: number;
}

/** Counts, over the steps of each conversation (state before → state after, with the event's type), the transitions taken. */
export function countTaken(machine: AnyStateMachine, conversations: Array<Pick<JournalStep, 'event' | 'state'>[]>): Map<string, TakenCount> {
  const counts = new Map<string, TakenCount>();
  for (const steps of conversations) {
    const seen = new Set<string>();
    for (let i = 1; i < steps.length; i++) {
      for (const t of inferTransitions(machine, steps[i - 1]!.state, steps[i]!.event.type, steps[i]!.state)) {
        const name = transitionName(t);
        const c = counts.get(name) ?? { conversations: 0, times: 0 };
        c.times++;
        if (!seen.has(name)) {
          c.conversations++;
          seen.add(name);
        }
        counts.set(name, c);
      }
    }
  }
  return counts;
}
