// `npm run docs:cli`: regenerates docs/cli.md (commands, options, exit codes) from cli/definitions.ts.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_DOC_FILE, renderCliDoc } from '../cli/cliDoc.js';
import { PROJECT_ROOT } from '../core/version.js';

const path = join(PROJECT_ROOT, CLI_DOC_FILE);
const after = renderCliDoc();
if (existsSync(path) && readFileSync(path, 'utf8') === after) {
  console.log(`${CLI_DOC_FILE}: up to date`);
} else {
  writeFileSync(path, after);
  console.log(`${CLI_DOC_FILE}: updated`);
}
