import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { importGraph, runtimeClosure, SOURCE_DIRS, type ImportEdge } from './imports.js';
import { cycles, LAYERS, violations } from './layers.js';

/**
 * The architecture audit (like pipecat's tests/test_deprecation_markers.py): every import of the
 * sources, type-only imports and `import()` included, checked against the layer matrix of
 * test/architecture/layers.ts, through any chain. There is no exception list: a violation fails.
 */
const root = process.cwd();
const graph = importGraph(root);
const everything = importGraph(root, [...SOURCE_DIRS, 'test', 'bench', 'scripts']);

const edge = (from: string, target: string, opts: Partial<ImportEdge> = {}): ImportEdge => ({
  from,
  specifier: target,
  target,
  kind: 'file',
  typeOnly: false,
  dynamic: false,
  names: ['*'],
  ...opts,
});

describe('layers', () => {
  it('reads the imports of every source file, type-only and dynamic ones included', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('machines/skull.ts')!.map((e) => e.target)).toContain('xstate');
    expect(graph.get('machines/chat.ts')!.some((e) => e.typeOnly && e.target === 'machines/llmPort.ts')).toBe(true);
    expect(graph.get('actors/corrections/contract.ts')!.some((e) => e.dynamic && e.target === 'actors/corrections/service.ts')).toBe(true);
  });

  it('checks the same layer order as the lint rules', async () => {
    // The zones the linter applies to a file of each layer: every folder that layer may not import.
    const above = ['test', 'bench', 'scripts'];
    for (const [layer, allowed] of Object.entries(LAYERS)) {
      const config = (await new ESLint({ cwd: root }).calculateConfigForFile(`${layer}/any.ts`)) as { rules: Record<string, [number, { zones: Array<{ target: string; from: string[] }> }]> };
      const zone = config.rules['import-x/no-restricted-paths']![1].zones.find((z) => z.target === `./${layer}`);
      const forbidden = [...Object.keys(LAYERS), ...above].filter((other) => other !== layer && !allowed.includes(other)).map((other) => `./${other}`);
      expect(zone?.from.sort(), layer).toEqual(forbidden.sort());
    }
  }, 60_000);

  it('no import breaks the layer matrix, through any chain', () => {
    expect(violations(graph)).toEqual([]);
  });

  it('no two files import each other through any chain, tests, benchmarks and scripts included', () => {
    expect(cycles(everything)).toEqual([]);
  });

  it('machines and prompts load nothing but xstate, zod and pure modules at run time', () => {
    for (const file of [...graph.keys()].filter((f) => f.startsWith('machines/') || f.startsWith('prompts/'))) {
      const loaded = [...runtimeClosure(graph, file).keys()];
      expect(loaded.filter((t) => t.startsWith('node:') || t === 'js-tiktoken'), file).toEqual([]);
    }
  });
});

describe('the matrix names each kind of violation', () => {
  it('an upward import, type-only or dynamic, direct or through a chain', () => {
    const synthetic = new Map([
      ['core/a.ts', [edge('core/a.ts', 'actors/s/x.ts', { dynamic: true })]],
      ['machines/m.ts', [edge('machines/m.ts', 'actors/s/x.ts', { typeOnly: true })]],
      ['web/p.ts', [edge('web/p.ts', 'transports/http/e.ts', { typeOnly: true })]],
      ['transports/http/e.ts', [edge('transports/http/e.ts', 'actors/s/x.ts', { typeOnly: true })]],
      ['actors/s/x.ts', []],
    ]);
    const found = violations(synthetic);
    expect(found).toContain('core/a.ts → actors/s/x.ts (core/ imports only core)');
    expect(found).toContain('machines/m.ts → actors/s/x.ts (machines/ imports only machines, prompts)');
    expect(found).toContain('transports/http/e.ts → actors/s/x.ts (transports/ imports only transports, core, machines)');
    expect(found).toContain('web/p.ts → actors/s/x.ts (reaches a layer above its own: web/p.ts → transports/http/e.ts → actors/s/x.ts)');
  });

  it('an impure module a machine reaches through a pure-looking one', () => {
    const synthetic = new Map([
      ['machines/m.ts', [edge('machines/m.ts', 'xstate', { kind: 'package' }), edge('machines/m.ts', 'machines/tokens.ts')]],
      ['machines/tokens.ts', [edge('machines/tokens.ts', 'node:module', { kind: 'builtin' })]],
    ]);
    expect(violations(synthetic)).toEqual([
      'machines/m.ts → node:module (machines/ load only xstate, zod and pure modules; via machines/m.ts → machines/tokens.ts → node:module)',
      'machines/tokens.ts → node:module (machines/ import only xstate, zod and relative pure code)',
      'machines/tokens.ts → node:module (machines/ load only xstate, zod and pure modules; via machines/tokens.ts → node:module)',
    ]);
  });

  it('a cycle, even through a type-only import', () => {
    const synthetic = new Map([
      ['actors/s/a.ts', [edge('actors/s/a.ts', 'actors/s/b.ts', { typeOnly: true })]],
      ['actors/s/b.ts', [edge('actors/s/b.ts', 'actors/s/c.ts')]],
      ['actors/s/c.ts', [edge('actors/s/c.ts', 'actors/s/a.ts')]],
    ]);
    expect(violations(synthetic)).toEqual(['cycle: actors/s/a.ts ⇄ actors/s/b.ts ⇄ actors/s/c.ts']);
  });

  it('a surface reaching another beside its declared port', () => {
    const synthetic = new Map([['actors/t2/wiring.ts', [edge('actors/t2/wiring.ts', 'actors/corrections/contract.ts', { dynamic: true }), edge('actors/t2/wiring.ts', 'actors/corrections/service.ts', { dynamic: true })]]]);
    expect(violations(synthetic)).toEqual(['actors/t2/wiring.ts → actors/corrections/service.ts (a surface reaches another only through its declared port)']);
  });
});
