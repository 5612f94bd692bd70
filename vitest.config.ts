import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'machines/**/*.test.ts', 'actors/**/*.test.ts', 'transports/**/*.test.ts', 'core/**/*.test.ts', 'prompts/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores on CI: keep parallelism modest so socket and browser tests do not starve.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
