import { runtimeClosure, type ImportEdge } from './imports.js';

/**
 * The layers of docs/architecture.md as a matrix over the import graph. A violation is named
 * `importer → target (rule)`; today's are listed, with a reason, in
 * test/architecture/exceptions.json, a list that only shrinks.
 *
 * - machines: pure statecharts. What a machine loads at run time (followed transitively through
 *   value imports) is xstate, other machines and pure modules only: no Node built-in, no other
 *   package, nothing from core/, transports/, web/ or cli/. Type-only imports are free.
 * - transports: protocol edges. No actors, prompts or web (the wiring provides what they need);
 *   from machines, types and selectors only, never a machine to `provide()`; never another
 *   protocol's edges.
 * - actors: what is provided to machines. Never a transport or a page; one surface's actors never
 *   import another surface's, except its declared port `actors/<surface>/contract.ts` (shared
 *   capabilities: llm, retrieval, statecharts).
 * - prompts: text and pure rules: no transport, core or actors at run time.
 */
export const PURE_PACKAGES = new Set(['xstate', 'zod']);

/** Surfaces of actors/surfaces.ts, by their folder under actors/ (llm, retrieval, statecharts are shared). */
const SURFACES = new Set(['skull', 'docs', 'corrections', 't2']);

const layerOf = (file: string): string => file.split('/')[0]!;

/** One per surface, listed in actors/surfaces.ts, and the process's (actors/serve.ts): the only files of actors/ that see transports/ and web/. */
export const isCompositionRoot = (file: string): boolean => /^actors\/[^/]+\/surface\.ts$/.test(file) || file === 'actors/serve.ts';

/** A surface's declared port (`actors/<surface>/contract.ts`): what another surface may import from it. */
const isDeclaredPort = (file: string): boolean => /^actors\/[^/]+\/contract\.ts$/.test(file);

/** Values a transport may take from a machine: selectors, constants, pure helpers; not `…Machine`. */
const isMachineValue = (name: string): boolean => /Machine$/.test(name);

export function violations(graph: Map<string, ImportEdge[]>): string[] {
  const out = new Set<string>();
  for (const [file, edges] of graph) {
    const layer = layerOf(file);
    if (layer === 'machines') {
      for (const [target, chain] of runtimeClosure(graph, file)) {
        if (target === file) continue;
        const bad = target.startsWith('node:')
          ? 'a Node built-in'
          : !target.includes('/') && !target.endsWith('.ts')
            ? PURE_PACKAGES.has(target) ? null : `package ${target}`
            : target.startsWith('@')
              ? `package ${target}`
              : ['core', 'transports', 'web', 'cli'].includes(layerOf(target))
                ? `${layerOf(target)}/`
                : null;
        if (bad) out.add(`${file} → ${target} (machines load only xstate, machines and pure modules; via ${chain.join(' → ')})`);
      }
    }
    for (const e of edges) {
      if (e.kind !== 'file' || e.typeOnly) continue;
      const to = layerOf(e.target);
      if (layer === 'transports') {
        if (to === 'actors' || to === 'prompts' || to === 'web') out.add(`${file} → ${e.target} (transports do not import ${to}/)`);
        if (to === 'transports' && e.target.split('/')[1] !== file.split('/')[1]) out.add(`${file} → ${e.target} (a transport does not import another protocol's edge)`);
        if (to === 'machines') {
          for (const n of e.names.filter((n) => n === '*' || isMachineValue(n))) out.add(`${file} → ${e.target} (transports take types and selectors from machines, not ${n})`);
        }
      }
      // A surface's composition root (actors/<surface>/surface.ts) wires its chart, actors, edges and pages.
      if (layer === 'actors' && !isCompositionRoot(file) && (to === 'transports' || to === 'web')) out.add(`${file} → ${e.target} (actors do not import ${to}/)`);
      const [, fromSurface] = file.split('/');
      const [, toSurface] = e.target.split('/');
      if (layer === 'actors' && to === 'actors' && SURFACES.has(fromSurface!) && SURFACES.has(toSurface!) && fromSurface !== toSurface && !isDeclaredPort(e.target)) {
        out.add(`${file} → ${e.target} (a surface reaches another only through its declared port)`);
      }
      if (layer === 'prompts' && ['transports', 'core', 'actors'].includes(to)) out.add(`${file} → ${e.target} (prompts do not import ${to}/)`);
    }
  }
  return [...out].sort();
}
