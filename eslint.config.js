import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importCycles from './scripts/lint/importCycles.js';

/**
 * The layers of docs/architecture.md, bottom to top. A file imports only from its own top-level
 * folder or from the folders this table allows it (type-only imports and `import()` included);
 * test/architecture/layers.test.ts checks the same table over the whole import graph, and
 * test/architecture/lintPlanted.test.ts shows a planted violation of each kind failing lint.
 */
const LAYERS = {
  core: [],
  prompts: [],
  machines: ['prompts'],
  transports: ['core', 'machines'],
  web: ['core', 'machines', 'transports'],
  actors: ['core', 'prompts', 'machines', 'transports', 'web'],
  cli: ['core', 'prompts', 'machines', 'transports', 'web', 'actors'],
};

const WHY = {
  core: 'core/ is the bottom layer: it imports nothing of the project outside core/ (a surface hands it what it needs through the surface contract).',
  prompts: 'prompts/ are text and pure rules: they import nothing outside prompts/.',
  machines: 'machines/ are pure statecharts: xstate, zod, prompts/ and pure code under machines/ only; the effects are provided at wiring time.',
  transports: 'transports/ are protocol edges: they import core/ and what machines/ export, nothing else; the surface composition root provides the rest.',
  web: 'web/ holds pages: it imports core/, machines/ and transports/ only; data from actors/ is handed to it by the composition root.',
  actors: 'actors/ import every layer below them, never cli/.',
  cli: 'cli/ is the top of the runtime.',
};

const ABOVE_ALL = ['test', 'bench', 'scripts'];

const layerZones = Object.entries(LAYERS).map(([layer, below]) => ({
  target: `./${layer}`,
  from: [...Object.keys(LAYERS), ...ABOVE_ALL].filter((other) => other !== layer && !below.includes(other)).map((other) => `./${other}`),
  message: WHY[layer],
}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'web/static/vendor/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  { files: ['web/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX, palabre: importCycles },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
      // Without these import-x/no-cycle reads no TypeScript module and finds no cycle.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/external-module-folders': ['node_modules', 'node_modules/@types'],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'palabre/no-cycle-through-types': 'error',
      // `import('…').T` in a type escapes the two rules above: name the type with `import type`.
      'no-restricted-syntax': ['error', { selector: 'TSImportType[source.value=/^\\./]', message: "Name a type of this project with `import type { … } from '…'`, which the layer and cycle rules read." }],
    },
  },
  {
    // A chart loads prompts/ too, so both stay free of effects.
    files: ['machines/**/*.ts', 'prompts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // Anything that is not relative, xstate or zod: Node built-ins and SDKs alike.
              regex: '^(?!\\.|xstate($|/)|zod$)',
              message: 'machines/ and prompts/ are pure: no Node built-ins or SDKs. Provide the effect as a named actor or action at wiring time.',
            },
          ],
        },
      ],
    },
  },
);
