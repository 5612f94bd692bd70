import { runtimeClosure, type ImportEdge } from './imports.js';

/**
 * The layers of docs/architecture.md as a matrix over the import graph, type-only imports and
 * `import()` included. A violation is named `importer → target (rule)`; there is no exception list.
 *
 * - Order, bottom to top: core/ and prompts/ (each imports only itself), machines/ (+ prompts/),
 *   transports/ (+ core/, machines/), web/ (+ core/, machines/, transports/), actors/ (everything
 *   below), cli/ (everything); test/, bench/, scripts/ sit above all. No file reaches a folder
 *   above its own through any chain.
 * - machines/ and prompts/ are pure: what they load at run time (value imports, followed) is
 *   xstate, zod and their own pure modules; no Node built-in, no other package, not even as a type.
 * - No cycle: no two files import each other through any chain.
 * - transports: from machines, types and selectors only, never a machine to `provide()`; never
 *   another protocol's edge.
 * - actors: one surface's actors never import another surface's, except its declared port
 *   `actors/<surface>/contract.ts` (llm, retrieval, statecharts are shared capabilities).
 */
export const LAYERS: Readonly<Record<string, readonly string[]>> = {
  core: [],
  prompts: [],
  machines: ['prompts'],
  transports: ['core', 'machines'],
  web: ['core', 'machines', 'transports'],
  actors: ['core', 'prompts', 'machines', 'transports', 'web'],
  cli: ['core', 'prompts', 'machines', 'transports', 'web', 'actors'],
};

/** Height of each layer: an import may never reach a greater one, through any chain. */
const RANK: Readonly<Record<string, number>> = { core: 0, prompts: 0, machines: 1, transports: 2, web: 3, actors: 4, cli: 5 };

const PURE_PACKAGES = new Set(['xstate', 'zod']);
const PURE_LAYERS = new Set(['machines', 'prompts']);

/** Surfaces of actors/surfaces.ts, by their folder under actors/ (llm, retrieval, statecharts are shared). */
const SURFACES = new Set(['skull', 'docs', 'corrections', 't2']);

const layerOf = (file: string): string => file.split('/')[0]!;

/** A surface's declared port (`actors/<surface>/contract.ts`): what another surface may import from it. */
const isDeclaredPort = (file: string): boolean => /^actors\/[^/]+\/contract\.ts$/.test(file);

/** Values a transport may take from a machine: selectors, constants, pure helpers; not `…Machine`. */
const isMachineValue = (name: string): boolean => /Machine$/.test(name);

/**
 * Every file a file reaches through imports of any kind, with the chain that reaches it; a chain
 * is not followed past the first file above `start` (that step is the violation to name).
 */
function reach(graph: Map<string, ImportEdge[]>, start: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[start, [start]]]);
  const queue = [start];
  const height = RANK[layerOf(start)] ?? Infinity;
  while (queue.length) {
    const file = queue.shift()!;
    for (const e of graph.get(file) ?? []) {
      if (e.kind !== 'file' || seen.has(e.target)) continue;
      seen.set(e.target, [...seen.get(file)!, e.target]);
      if ((RANK[layerOf(e.target)] ?? Infinity) <= height) queue.push(e.target);
    }
  }
  return seen;
}

/** Files that import each other through some chain: the strongly connected components of two files or more. */
export function cycles(graph: Map<string, ImportEdge[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const e of graph.get(v) ?? []) {
      const w = e.target;
      if (e.kind !== 'file' || !graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

export function violations(graph: Map<string, ImportEdge[]>): string[] {
  const out = new Set<string>();
  for (const [file, edges] of graph) {
    const layer = layerOf(file);
    const allowed = LAYERS[layer];
    if (!allowed) continue;
    for (const e of edges) {
      if (e.kind !== 'file') {
        const pure = e.kind === 'package' && PURE_PACKAGES.has(e.target);
        if (PURE_LAYERS.has(layer) && !pure) out.add(`${file} → ${e.target} (${layer}/ import only xstate, zod and relative pure code)`);
        continue;
      }
      const to = layerOf(e.target);
      if (to !== layer && !allowed.includes(to)) out.add(`${file} → ${e.target} (${layer}/ imports only ${[layer, ...allowed].join(', ')})`);
      if (layer === 'transports' && !e.typeOnly) {
        if (to === 'transports' && e.target.split('/')[1] !== file.split('/')[1]) out.add(`${file} → ${e.target} (a transport does not import another protocol's edge)`);
        if (to === 'machines') {
          for (const n of e.names.filter((n) => n === '*' || isMachineValue(n))) out.add(`${file} → ${e.target} (transports take types and selectors from machines, not ${n})`);
        }
      }
      const [, fromSurface] = file.split('/');
      const [, toSurface] = e.target.split('/');
      if (layer === 'actors' && to === 'actors' && SURFACES.has(fromSurface!) && SURFACES.has(toSurface!) && fromSurface !== toSurface && !isDeclaredPort(e.target)) {
        out.add(`${file} → ${e.target} (a surface reaches another only through its declared port)`);
      }
    }
    // Through any chain: nothing above, and for the pure layers nothing impure at run time.
    for (const [target, chain] of reach(graph, file)) {
      const to = layerOf(target);
      if (to in RANK && RANK[to]! > RANK[layer]!) out.add(`${file} → ${target} (reaches a layer above its own: ${chain.join(' → ')})`);
    }
    if (PURE_LAYERS.has(layer)) {
      for (const [target, chain] of runtimeClosure(graph, file)) {
        const impure = target.startsWith('node:') || (!target.endsWith('.ts') && !PURE_PACKAGES.has(target) && !target.endsWith('.json'));
        if (impure) out.add(`${file} → ${target} (${layer}/ load only xstate, zod and pure modules; via ${chain.join(' → ')})`);
      }
    }
  }
  for (const c of cycles(graph)) out.add(`cycle: ${c.join(' ⇄ ')}`);
  return [...out].sort();
}
