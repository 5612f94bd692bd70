import type { AnyStateMachine } from 'xstate';

/**
 * A plain, serialisable view of a statechart: what the exporters (JSON, Mermaid, SCXML), the
 * layout (SVG) and the inspector draw. Built from `machine.definition`, so it shows exactly what
 * XState runs — nested and parallel states, guards, delays, invoked actors — and nothing of the
 * implementations (which are provided at wiring time and may hold secrets).
 */

type ChartNodeType = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

export interface ChartNode {
  /** Dotted id as XState names it, e.g. `llmCall.attempting`. */
  id: string;
  key: string;
  type: ChartNodeType;
  /** Id of the initial child (compound states). */
  initial?: string;
  children: ChartNode[];
  /** Invoked actors: their `src` names. */
  invokes: Array<{ id: string; src: string }>;
  entry: string[];
  exit: string[];
  tags: string[];
  description?: string;
}

type TransitionKind = 'event' | 'after' | 'done' | 'error' | 'always' | 'stateDone';

export interface ChartTransition {
  source: string;
  /** Empty for a targetless (internal) transition. */
  targets: string[];
  /** The event type as XState names it (`xstate.after.…`, `xstate.done.actor.…` included). */
  event: string;
  /** Human label: the event, `after 300ms`, `done: generate`, `error: generate`, `always`. */
  label: string;
  kind: TransitionKind;
  guard?: string;
  delay?: string | number;
  actions: string[];
  reenter: boolean;
}

export interface Chart {
  /** Registry name of the machine (`skull`, `llmCall`, …). */
  name: string;
  id: string;
  root: ChartNode;
  transitions: ChartTransition[];
}

interface DefAction {
  type?: unknown;
}
interface DefTransition {
  target?: unknown[];
  guard?: unknown;
  actions?: DefAction[];
  source: string;
  reenter?: boolean;
  eventType: string;
  delay?: string | number;
}
interface DefInvoke {
  id: string;
  src: unknown;
}
interface DefNode {
  id: string;
  key: string;
  type: ChartNodeType;
  initial?: { target?: unknown[] };
  states: Record<string, DefNode>;
  transitions: DefTransition[];
  entry: DefAction[];
  exit: DefAction[];
  invoke: DefInvoke[];
  tags: string[];
  description?: string;
}

/** Targets are StateNodes in a live definition and `#id` strings once serialised. */
const targetId = (t: unknown): string => {
  const id = typeof t === 'string' ? t : String((t as { id?: unknown }).id);
  return id.startsWith('#') ? id.slice(1) : id;
};

function nameOf(thing: unknown): string {
  if (typeof thing === 'string') return thing;
  if (thing && typeof thing === 'object') {
    const t = (thing as { type?: unknown }).type;
    if (typeof t === 'string') return t;
  }
  if (typeof thing === 'function') return thing.name || 'inline';
  return 'inline';
}

/** Built-in action types are shown without their `xstate.` prefix; inline functions as `inline`. */
function actionName(a: DefAction): string {
  const n = nameOf(a);
  return n.startsWith('xstate.') ? n.slice('xstate.'.length) : n;
}

function guardName(g: unknown): string | undefined {
  if (g === undefined || g === null) return undefined;
  if (typeof g === 'string') return g;
  if (typeof g === 'object') {
    const obj = g as { type?: unknown; params?: unknown };
    if (typeof obj.type === 'string') return obj.type;
  }
  return nameOf(g);
}

function srcName(src: unknown): string {
  if (typeof src === 'string') return src;
  if (src && typeof src === 'object' && 'config' in src) {
    const id = (src as { id?: unknown }).id;
    if (typeof id === 'string') return id;
  }
  return 'inline';
}

function classify(t: DefTransition, invokes: Map<string, string>): { kind: TransitionKind; label: string } {
  const e = t.eventType;
  if (e === '' ) return { kind: 'always', label: 'always' };
  if (e.startsWith('xstate.after.')) {
    const d = t.delay;
    return { kind: 'after', label: typeof d === 'number' ? `after ${d}ms` : `after ${String(d ?? '?')}` };
  }
  if (e.startsWith('xstate.done.actor.')) {
    const id = e.slice('xstate.done.actor.'.length);
    return { kind: 'done', label: `done: ${invokes.get(id) ?? id}` };
  }
  if (e.startsWith('xstate.error.actor.')) {
    const id = e.slice('xstate.error.actor.'.length);
    return { kind: 'error', label: `error: ${invokes.get(id) ?? id}` };
  }
  if (e.startsWith('xstate.done.state.')) return { kind: 'stateDone', label: 'done' };
  return { kind: 'event', label: e };
}

/** Builds the chart of a machine. `name` is its registry name. */
export function chartOf(name: string, machine: AnyStateMachine): Chart {
  const def = machine.definition as unknown as DefNode;
  const transitions: ChartTransition[] = [];
  const invokeSrc = new Map<string, string>();

  const collectInvokes = (node: DefNode): void => {
    for (const inv of node.invoke) invokeSrc.set(inv.id, srcName(inv.src));
    for (const child of Object.values(node.states)) collectInvokes(child);
  };
  collectInvokes(def);

  const build = (node: DefNode): ChartNode => {
    // `always` transitions are not in the definition's list; the live StateNode has them.
    const live = machine.getStateNodeById(node.id) as unknown as { always?: DefTransition[] };
    const all = [...node.transitions, ...(live.always ?? [])];
    const hasAfter = node.transitions.some((t) => t.eventType.startsWith('xstate.after.'));
    // XState implements `after` with an entry raise and an exit cancel: they are not the author's.
    const own = (acts: DefAction[]): string[] =>
      acts.map(actionName).filter((n) => !(hasAfter && (n === 'raise' || n === 'cancel')));
    for (const t of all) {
      const { kind, label } = classify(t, invokeSrc);
      const guard = guardName(t.guard);
      transitions.push({
        source: node.id,
        targets: (t.target ?? []).map(targetId),
        event: t.eventType,
        label: guard ? `${label} [${guard}]` : label,
        kind,
        ...(guard ? { guard } : {}),
        ...(t.delay !== undefined ? { delay: t.delay } : {}),
        actions: (t.actions ?? []).map(actionName),
        reenter: Boolean(t.reenter),
      });
    }
    const initialTarget = node.initial?.target?.[0];
    return {
      id: node.id,
      key: node.key,
      type: node.type,
      ...(initialTarget ? { initial: targetId(initialTarget) } : {}),
      children: Object.values(node.states).map(build),
      invokes: node.invoke.map((i) => ({ id: i.id, src: srcName(i.src) })),
      entry: own(node.entry),
      exit: own(node.exit),
      tags: node.tags,
      ...(node.description ? { description: node.description } : {}),
    };
  };

  const root = build(def);
  return { name, id: def.id, root, transitions };
}

/** Every node of the chart, depth first. */
export function allNodes(chart: Chart): ChartNode[] {
  const out: ChartNode[] = [];
  const walk = (n: ChartNode): void => {
    out.push(n);
    n.children.forEach(walk);
  };
  walk(chart.root);
  return out;
}
