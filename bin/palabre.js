#!/usr/bin/env node
// Entry point of the `palabre` command. `npm install` compiles the TypeScript sources to dist/
// (the `prepare` script); this file hands over to the compiled CLI. In a checkout where the build
// has not run yet, it falls back to the sources through tsx (a dev dependency).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/cli/main.js', import.meta.url);

async function load() {
  if (existsSync(fileURLToPath(compiled))) return import(compiled.href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(new URL('../cli/main.ts', import.meta.url).href);
}

load()
  .then(async (m) => {
    const code = await m.main(process.argv.slice(2));
    m.exitWith(typeof code === 'number' ? code : 0);
  })
  .catch((err) => {
    console.error(`palabre: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  });
