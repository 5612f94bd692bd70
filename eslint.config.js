import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * Layers (docs/architecture.md), enforced per folder; test/architecture/layers.test.ts checks the
 * whole matrix transitively, with today's exceptions listed in test/architecture/exceptions.json.
 * Type-only imports are free: they vanish at run time.
 */
const machineImports = {
  patterns: [
    {
      // Anything that is not relative, xstate or zod: Node built-ins and SDKs alike.
      regex: '^(?!\\.|xstate($|/)|zod$)',
      message: 'machines/ are pure statecharts: no Node built-ins or SDKs. Provide the effect as a named actor or action at wiring time.',
    },
    {
      group: ['**/core/**', '**/transports/**', '**/web/**', '**/cli/**'],
      allowTypeImports: true,
      message: 'machines/ never import core/, transports/, web/ or cli/: the wiring provides what they need (type-only imports are fine).',
    },
  ],
};

const transportImports = {
  patterns: [
    {
      group: ['**/actors/**', '**/prompts/**', '**/web/**'],
      allowTypeImports: true,
      message: 'transports/ are protocol edges: actors, prompts and pages are provided by the surface composition root (actors/<surface>/surface.ts).',
    },
  ],
};

const actorImports = {
  patterns: [
    {
      group: ['**/transports/**', '**/web/**'],
      allowTypeImports: true,
      message: 'actors/ never import transports/ or web/: the composition root wires them together.',
    },
  ],
};

const promptImports = {
  patterns: [
    {
      group: ['**/transports/**', '**/core/**', '**/actors/**', '**/web/**'],
      allowTypeImports: true,
      message: 'prompts/ are text and pure rules: no transport, core, actor or page at run time (type-only imports are fine).',
    },
  ],
};

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
  { files: ['machines/**/*.ts'], rules: { '@typescript-eslint/no-restricted-imports': ['error', machineImports] } },
  {
    files: ['transports/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', transportImports] },
  },
  { files: ['prompts/**/*.ts'], rules: { '@typescript-eslint/no-restricted-imports': ['error', promptImports] } },
  // Each surface's composition root (actors/<surface>/surface.ts) wires edges and pages to its actors.
  { files: ['actors/**/*.ts'], ignores: ['actors/*/surface.ts'], rules: { '@typescript-eslint/no-restricted-imports': ['error', actorImports] } },
);
