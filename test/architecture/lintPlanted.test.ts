import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm run lint` (the project's eslint.config.js, through ESLint's own Node API) fails on a planted
 * violation of each layer rule and on a planted cycle, and passes a legal import. A snippet is
 * linted as if it stood at a path of the tree; a cycle needs real files, planted in a folder of
 * the repository and removed afterwards.
 */
const root = process.cwd();
const eslint = new ESLint({ cwd: root });
// Linting resolves every import through the TypeScript resolver; a loaded machine may be slow.
const SLOW = 120_000;

const LAYER_RULES = new Set(['import-x/no-restricted-paths', '@typescript-eslint/no-restricted-imports', 'no-restricted-syntax', 'import-x/no-cycle', 'palabre/no-cycle-through-types']);

async function lint(filePath: string, code: string): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  return result!.messages;
}

const ruleIds = (messages: Linter.LintMessage[]) => messages.map((m) => m.ruleId).filter((id) => id && LAYER_RULES.has(id));

describe('lint fails on a planted upward import', () => {
  it('core/ importing actors/', async () => {
    const messages = await lint('core/planted.ts', "import { o200k } from '../actors/skull/tokens.js';\nexport const x = o200k;\n");
    expect(ruleIds(messages)).toEqual(['import-x/no-restricted-paths']);
    expect(messages[0]!.message).toMatch(/core\/ is the bottom layer/);
  }, SLOW);

  it('core/ loading actors/ with import()', async () => {
    const messages = await lint('core/planted.ts', "export const load = () => import('../actors/skull/tokens.js');\n");
    expect(ruleIds(messages)).toEqual(['import-x/no-restricted-paths']);
  }, SLOW);

  it('machines/ importing actors/, a Node built-in or an SDK', async () => {
    expect(ruleIds(await lint('machines/planted.ts', "import { o200k } from '../actors/skull/tokens.js';\nexport const x = o200k;\n"))).toEqual(['import-x/no-restricted-paths']);
    expect(ruleIds(await lint('machines/planted.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n"))).toEqual(['@typescript-eslint/no-restricted-imports']);
    expect(ruleIds(await lint('machines/planted.ts', "import OpenAI from 'openai';\nexport const x = OpenAI;\n"))).toEqual(['@typescript-eslint/no-restricted-imports']);
  }, SLOW);

  it('a type-only import upward: web/ naming a type of actors/, a transport one of prompts/', async () => {
    const web = await lint('web/planted.ts', "import type { CorrectionEngine } from '../actors/corrections/service.js';\nexport type X = CorrectionEngine;\n");
    expect(ruleIds(web)).toEqual(['import-x/no-restricted-paths']);
    expect(web[0]!.message).toMatch(/web\/ holds pages/);
    const transport = await lint('transports/http/planted.ts', "import type { Production } from '../../prompts/corrections/tasks.js';\nexport type X = Production;\n");
    expect(ruleIds(transport)).toEqual(['import-x/no-restricted-paths']);
  }, SLOW);

  it("a type named with import('…'), which would escape the layer rules", async () => {
    const messages = await lint('actors/planted.ts', "export type X = import('../machines/chatContract.js').ChatAnswer;\n");
    expect(ruleIds(messages)).toEqual(['no-restricted-syntax']);
  }, SLOW);

  it('passes a legal import: a transport taking a type from machines/ and a value from core/', async () => {
    const messages = await lint(
      'transports/http/planted.ts',
      "import type { ChatAnswer } from '../../machines/chatContract.js';\nimport { extractBearer } from '../../core/auth.js';\nexport type Answer = ChatAnswer;\nexport const bearer = extractBearer;\n",
    );
    expect(messages).toEqual([]);
  }, SLOW);
});

describe('lint fails on a planted cycle', () => {
  // At the root, out of the folders test/architecture/layers.test.ts reads while it may run beside.
  const dir = join(root, `.lint-planted-${process.pid}`);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const plant = (files: Record<string, string>) => {
    mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return Object.keys(files).map((name) => join(dir, name));
  };

  it('two files importing each other', async () => {
    try {
      const paths = plant({
        'a.ts': "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n",
        'b.ts': "import { a } from './a.js';\nexport const b = (): number => (a.length > 0 ? 0 : 1);\n",
      });
      const results = await eslint.lintFiles(paths);
      for (const r of results) expect(ruleIds(r.messages), r.filePath).toEqual(['import-x/no-cycle']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, SLOW);

  it('two files tied by a type-only import one way and a value import the other', async () => {
    try {
      const paths = plant({
        'shape.ts': "import { DEFAULT } from './values.js';\nexport interface Shape { size: number }\nexport const start = DEFAULT;\n",
        'values.ts': "import type { Shape } from './shape.js';\nexport const DEFAULT: Shape = { size: 1 };\n",
      });
      const results = await eslint.lintFiles(paths);
      for (const r of results) expect(ruleIds(r.messages), r.filePath).toEqual(['palabre/no-cycle-through-types']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, SLOW);
});
