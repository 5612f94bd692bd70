import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { importGraph, runtimeClosure } from './imports.js';
import { violations } from './layers.js';

/**
 * The architecture audit (like pipecat's tests/test_deprecation_markers.py): every import of the
 * sources, checked against the layer matrix of test/architecture/layers.ts. Today's exceptions
 * are listed with a reason; a new violation fails, and so does an entry that no longer occurs.
 */
const root = process.cwd();
const graph = importGraph(root);
const listed = Object.fromEntries(
  Object.entries(JSON.parse(readFileSync(join(root, 'test/architecture/exceptions.json'), 'utf8')) as Record<string, string>).filter(([k]) => !k.startsWith('$')),
);

describe('layers', () => {
  it('reads the imports of every source file', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('machines/skull.ts')!.map((e) => e.target)).toContain('xstate');
  });

  it('no import breaks the layer matrix beyond the listed exceptions, and every listed one still occurs', () => {
    const found = violations(graph);
    expect(found.filter((v) => !(v in listed)), 'new violations: fix them (or, if truly needed, list them with a reason)').toEqual([]);
    expect(Object.keys(listed).filter((v) => !found.includes(v)), 'fixed: remove them from test/architecture/exceptions.json').toEqual([]);
  });

  it('names an impure module a machine reaches through a pure-looking one', () => {
    const edge = (from: string, target: string, kind: 'file' | 'builtin' | 'package' = 'file') => ({ from, specifier: target, target, kind, typeOnly: false, dynamic: false, names: ['*'] });
    const synthetic = new Map([
      ['machines/m.ts', [edge('machines/m.ts', 'xstate', 'package'), edge('machines/m.ts', 'actors/s/tokens.ts')]],
      ['actors/s/tokens.ts', [edge('actors/s/tokens.ts', 'node:module', 'builtin')]],
    ]);
    expect(violations(synthetic)).toEqual([expect.stringContaining('machines/m.ts → node:module (machines load only xstate, machines and pure modules; via machines/m.ts → actors/s/tokens.ts → node:module)')]);
  });

  it('lets a surface reach another through its declared port only', () => {
    const edge = (from: string, target: string) => ({ from, specifier: target, target, kind: 'file' as const, typeOnly: false, dynamic: true, names: ['*'] });
    const synthetic = new Map([['actors/t2/surface.ts', [edge('actors/t2/surface.ts', 'actors/corrections/contract.ts'), edge('actors/t2/surface.ts', 'actors/corrections/service.ts')]]]);
    expect(violations(synthetic)).toEqual(['actors/t2/surface.ts → actors/corrections/service.ts (a surface reaches another only through its declared port)']);
  });

  it('machines load nothing but xstate, machines and pure modules at run time', () => {
    for (const file of [...graph.keys()].filter((f) => f.startsWith('machines/'))) {
      const loaded = [...runtimeClosure(graph, file).keys()];
      expect(loaded.filter((t) => t.startsWith('node:') || t === 'js-tiktoken'), file).toEqual([]);
    }
  });
});

describe('lint enforces the layers', () => {
  const eslint = new ESLint({ cwd: root });
  const lint = async (filePath: string, code: string) => (await eslint.lintText(code, { filePath }))[0]!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports');

  it('fails on a machine importing a transport, a Node built-in or an SDK', async () => {
    const transport = await lint('machines/fixture.ts', "import { startSkullService } from '../transports/mqtt/skull.js';\nexport const x = startSkullService;\n");
    expect(transport.map((m) => m.message)).toEqual([expect.stringMatching(/machines\/ never import core\/, transports\//)]);
    const builtin = await lint('machines/fixture.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n");
    expect(builtin).toHaveLength(1);
    const sdk = await lint('machines/fixture.ts', "import OpenAI from 'openai';\nexport const x = OpenAI;\n");
    expect(sdk).toHaveLength(1);
  });

  it('lets a machine import xstate, another machine and types from anywhere', async () => {
    const ok = await lint(
      'machines/fixture.ts',
      "import { setup } from 'xstate';\nimport { llmCallMachine } from './llmCall.js';\nimport type { SkullService } from '../transports/mqtt/skull.js';\nexport const x: [typeof setup, typeof llmCallMachine, SkullService | null] = [setup, llmCallMachine, null];\n",
    );
    expect(ok).toEqual([]);
  });

  it('fails on an edge importing actors and on actors importing a transport', async () => {
    expect(await lint('transports/ws/fixture.ts', "import { o200k } from '../../actors/skull/tokens.js';\nexport const x = o200k;\n")).toHaveLength(1);
    expect(await lint('actors/skull/fixture.ts', "import { attachT2LiveSocket } from '../../transports/ws/t2liveSocket.js';\nexport const x = attachT2LiveSocket;\n")).toHaveLength(1);
  });

  it('fails on an edge importing a page and on a prompt importing an actor', async () => {
    expect(await lint('transports/http/fixture.ts', "import { sendPage } from '../../web/layout.js';\nexport const x = sendPage;\n")).toHaveLength(1);
    expect(await lint('prompts/fixture.ts', "import { nclcOf } from '../actors/corrections/report.js';\nexport const x = nclcOf;\n")).toHaveLength(1);
  });
});
