import { createMachine, type AnyStateMachine } from 'xstate';
import type { Chart, ChartNode, ChartTransition } from './chart.js';

/**
 * Rebuilds a machine (structure only, no implementations) from an exported chart. The export
 * round-trip test holds `chartOf(fromChart(json))` equal to the source chart, so the JSON export
 * is proven to carry the whole structure.
 */

interface TransitionConfig {
  target?: string[];
  guard?: string;
  actions?: string[];
  reenter?: boolean;
}

type StateConfig = {
  id?: string;
  type?: 'parallel' | 'final' | 'history';
  initial?: string;
  states?: Record<string, StateConfig>;
  on?: Record<string, TransitionConfig[]>;
  after?: Record<string, TransitionConfig[]>;
  always?: TransitionConfig[];
  invoke?: Array<{ id: string; src: string; onDone?: TransitionConfig[]; onError?: TransitionConfig[] }>;
  entry?: string[];
  exit?: string[];
  tags?: string[];
  description?: string;
};

function transitionConfig(t: ChartTransition): TransitionConfig {
  return {
    ...(t.targets.length > 0 ? { target: t.targets.map((id) => `#${id}`) } : {}),
    ...(t.guard ? { guard: t.guard } : {}),
    ...(t.actions.length > 0 ? { actions: t.actions } : {}),
    ...(t.reenter ? { reenter: true } : {}),
  };
}

function stateConfig(node: ChartNode, bySource: Map<string, ChartTransition[]>): StateConfig {
  const cfg: StateConfig = { id: node.id };
  if (node.type === 'parallel' || node.type === 'final' || node.type === 'history') cfg.type = node.type;
  if (node.initial) cfg.initial = node.initial.slice(node.id.length + 1);
  if (node.children.length > 0) {
    cfg.states = Object.fromEntries(node.children.map((c) => [c.key, stateConfig(c, bySource)]));
  }
  if (node.entry.length > 0) cfg.entry = node.entry;
  if (node.exit.length > 0) cfg.exit = node.exit;
  if (node.tags.length > 0) cfg.tags = node.tags;
  if (node.description) cfg.description = node.description;
  const invokes = node.invokes.map((inv) => ({ id: inv.id, src: inv.src }) as NonNullable<StateConfig['invoke']>[number]);
  for (const t of bySource.get(node.id) ?? []) {
    const tc = transitionConfig(t);
    if (t.kind === 'after') {
      cfg.after ??= {};
      (cfg.after[String(t.delay)] ??= []).push(tc);
    } else if (t.kind === 'always') {
      (cfg.always ??= []).push(tc);
    } else if (t.kind === 'done' || t.kind === 'error') {
      const invId = t.event.replace(/^xstate\.(done|error)\.actor\./, '');
      const inv = invokes.find((i) => i.id === invId);
      if (inv) {
        if (t.kind === 'done') (inv.onDone ??= []).push(tc);
        else (inv.onError ??= []).push(tc);
      } else {
        cfg.on ??= {};
        (cfg.on[t.event] ??= []).push(tc);
      }
    } else {
      cfg.on ??= {};
      (cfg.on[t.event] ??= []).push(tc);
    }
  }
  if (invokes.length > 0) cfg.invoke = invokes;
  return cfg;
}

export function machineFromChart(chart: Chart): AnyStateMachine {
  const bySource = new Map<string, ChartTransition[]>();
  for (const t of chart.transitions) {
    const list = bySource.get(t.source) ?? [];
    list.push(t);
    bySource.set(t.source, list);
  }
  const config = stateConfig(chart.root, bySource);
  // Numeric delays were exported as numbers; named delays need a (dummy) implementation to exist.
  return createMachine(config as Parameters<typeof createMachine>[0]);
}
