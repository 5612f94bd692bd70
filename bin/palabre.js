#!/usr/bin/env node
// Entry point of the `palabre` command. The TypeScript sources are compiled to dist/ by
// `npm install` (the `prepare` script); this file only hands over to the compiled CLI.
import('../dist/cli/main.js').then((m) => m.main(process.argv.slice(2))).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => { console.error(err instanceof Error ? err.message : String(err)); process.exitCode = 1; },
);
