import type { AnyMachineSnapshot, AnyStateMachine, EventObject } from 'xstate';
import { handledEventTypes } from './inventory.js';
import { getAdjacencyMap, getShortestPaths, getSimplePaths, serializeSnapshot, type StatePath, type TraversalOptions } from 'xstate/graph';

/**
 * Paths generated from a production machine with `xstate/graph`.
 *
 * Invocation results and timers are ordinary events of the graph: the traversal offers every
 * event type the current state handles, `xstate.done.actor.X` / `xstate.error.actor.X` /
 * `xstate.after.N.path` included. `samples` supplies their payloads (`output`, `error`) and the
 * payloads of plain events; a sample list may depend on the snapshot, and an empty list means
 * "not possible here" (e.g. no expiry pending).
 */
type EventPayload = Record<string, unknown>;
export type EventSamples = Record<string, readonly EventPayload[] | ((snapshot: AnyMachineSnapshot) => readonly EventPayload[])>;

interface ModelStep {
  event: EventObject;
  /** The state the model reaches after `event`; absent in a scenario (only the oracle judges it). */
  state?: AnyMachineSnapshot;
}

type PathKind = 'shortest' | 'simple' | 'transition' | 'scenario';

export interface ModelPath {
  kind: PathKind;
  description: string;
  /** First step is `xstate.init` (the initial state). */
  steps: ModelStep[];
}

export interface GenerateOptions {
  input: unknown;
  samples?: EventSamples;
  serializeState?: (snapshot: AnyMachineSnapshot) => string;
  /** Keep at most this many simple paths (0 or false: none). Default 200. */
  simplePaths?: number | false;
  /** Traversal bound (xstate/graph `limit`): a machine with an unbounded context must fail loudly. */
  limit?: number;
  describeEvent?: (event: EventObject) => string;
}

function samplesFor(samples: EventSamples | undefined, type: string, snapshot: AnyMachineSnapshot): readonly EventPayload[] | undefined {
  const s = samples?.[type];
  if (s === undefined) return undefined;
  return typeof s === 'function' ? s(snapshot) : s;
}

function defaultDescribeEvent(event: EventObject): string {
  const { type, ...rest } = event as EventObject & Record<string, unknown>;
  const short = type.replace(/^xstate\.(done|error)\.actor\./, '$1:').replace(/^xstate\.after\.([^.]+)\..*$/, 'after:$1');
  const payload = Object.entries(rest)
    .map(([k, v]) => {
      if (v instanceof Error) return `${k}=${(v as Error & { kind?: string }).kind ?? v.name}`;
      const json = JSON.stringify(v);
      return `${k}=${json && json.length > 40 ? json.slice(0, 37) + '…' : json}`;
    })
    .join(',');
  return payload ? `${short}(${payload})` : short;
}

function toModelPath(kind: PathKind, path: StatePath<AnyMachineSnapshot, EventObject>, describe: (e: EventObject) => string): ModelPath {
  const steps = path.steps.map((s) => ({ event: s.event, state: s.state }));
  return { kind, steps, description: steps.slice(1).map((s) => describe(s.event)).join(' → ') || '(initial state)' };
}

/** Key of a path for de-duplication: its event sequence. */
function pathKey(p: ModelPath): string {
  return p.steps.map((s) => JSON.stringify(s.event)).join('|');
}

export interface GeneratedPaths {
  paths: ModelPath[];
  counts: Record<PathKind, number>;
}

/**
 * Three generators over one graph, de-duplicated:
 * - shortest: the shortest path to every reachable state (getShortestPaths);
 * - simple: paths that never revisit a state (getSimplePaths), bounded;
 * - transition: the shortest path to each state extended by each event that state handles, so
 *   edges back to an already visited state (retries, a breaker closing) are taken too.
 */
export function generatePaths(machine: AnyStateMachine, opts: GenerateOptions): GeneratedPaths {
  const describe = opts.describeEvent ?? defaultDescribeEvent;
  // A machine that mutates its context in place (instead of assigning new objects) corrupts the
  // model's snapshots during the traversal; remember each snapshot's context as first seen so
  // that this is reported as such, not as a hundred confusing replay failures.
  const baseSerialize = opts.serializeState ?? ((s: AnyMachineSnapshot) => serializeSnapshot(s) as string);
  const firstSeen = new Map<AnyMachineSnapshot, string>();
  const contextJson = (s: AnyMachineSnapshot): string | undefined => {
    try {
      return JSON.stringify(s.context);
    } catch {
      return undefined;
    }
  };
  const remember = (s: AnyMachineSnapshot) => {
    if (firstSeen.has(s)) return;
    const json = contextJson(s);
    if (json !== undefined) firstSeen.set(s, json);
  };
  const assertNoMutation = (cause?: unknown) => {
    for (const [snapshot, before] of firstSeen) {
      const now = contextJson(snapshot);
      if (now !== undefined && now !== before) {
        throw new Error(
          `${machine.id}: a snapshot's context changed after it was created (an action mutates context in place instead of assigning a new object?)\n  first seen: ${before.slice(0, 300)}\n  now:        ${now.slice(0, 300)}`,
          cause === undefined ? undefined : { cause },
        );
      }
    }
  };
  // Each event type the current state handles, once per sample (or bare when it has none).
  const events = (snapshot: AnyMachineSnapshot): EventObject[] => {
    if (snapshot.status !== 'active') return [];
    const out: EventObject[] = [];
    for (const type of handledEventTypes(machine, snapshot.value)) {
      const payloads = samplesFor(opts.samples, type, snapshot);
      if (payloads === undefined) out.push({ type });
      else for (const payload of payloads) out.push({ ...payload, type });
    }
    return out;
  };
  const traversal: TraversalOptions<AnyMachineSnapshot, EventObject, unknown> = {
    input: opts.input,
    events,
    limit: opts.limit ?? 20_000,
    serializeState: (snapshot) => {
      remember(snapshot);
      return baseSerialize(snapshot);
    },
  };
  const seen = new Set<string>();
  const paths: ModelPath[] = [];
  const counts: Record<PathKind, number> = { shortest: 0, simple: 0, transition: 0, scenario: 0 };
  const add = (p: ModelPath) => {
    const key = pathKey(p);
    if (seen.has(key)) return;
    seen.add(key);
    paths.push(p);
    counts[p.kind]++;
  };

  try {
    const shortest = getShortestPaths(machine, traversal).map((p) => toModelPath('shortest', p, describe));
    shortest.forEach(add);

    const simpleMax = opts.simplePaths === false ? 0 : (opts.simplePaths ?? 200);
    if (simpleMax > 0) {
      getSimplePaths(machine, traversal)
        .map((p) => toModelPath('simple', p, describe))
        .sort((a, b) => b.steps.length - a.steps.length)
        .slice(0, simpleMax)
        .forEach(add);
    }

    // Prefixes come from a breadth-first walk of this same adjacency map: snapshots of two
    // traversals may serialize differently (ids of spawned actors), so they are not mixed.
    const adjacency = getAdjacencyMap(machine, traversal);
    const keys = Object.keys(adjacency);
    const prefix = new Map<string, ModelStep[]>();
    if (keys[0] !== undefined) prefix.set(keys[0], [{ event: { type: 'xstate.init' }, state: adjacency[keys[0] as keyof typeof adjacency]!.state }]);
    const queue = keys.slice(0, 1);
    while (queue.length) {
      const key = queue.shift()!;
      const steps = prefix.get(key)!;
      const vertex = adjacency[key as keyof typeof adjacency]!;
      for (const { event, state } of Object.values(vertex.transitions) as Array<{ event: EventObject; state: AnyMachineSnapshot }>) {
        const path = [...steps, { event, state }];
        add({ kind: 'transition', steps: path, description: path.slice(1).map((s) => describe(s.event)).join(' → ') });
        const next = baseSerialize(state);
        if (!prefix.has(next) && next in adjacency) {
          prefix.set(next, path);
          queue.push(next);
        }
      }
    }
  } catch (error) {
    // xstate/graph trips over snapshots whose serialization changed: say why when that is it.
    assertNoMutation(error);
    throw error;
  }
  assertNoMutation();
  return { paths, counts };
}
