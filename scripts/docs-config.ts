// `npm run docs:config`: regenerates the configuration tables in README.md and
// docs/configuration.md from the `.describe()` texts of every section palabre loads
// (core's, the LLM providers', each surface's: actors/palabreConfig.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_DOC_FILES, undocumentedKeys, withConfigTables } from '../core/config/configDoc.js';
import { PALABRE_SECTIONS } from '../actors/palabreConfig.js';
import { PROJECT_ROOT } from '../core/version.js';

const missing = undocumentedKeys(PALABRE_SECTIONS);
if (missing.length > 0) {
  console.error(`keys without .describe(): ${missing.join(', ')}`);
  process.exitCode = 1;
}
for (const file of CONFIG_DOC_FILES) {
  const path = join(PROJECT_ROOT, file);
  const before = readFileSync(path, 'utf8');
  const after = withConfigTables(before, file, PALABRE_SECTIONS);
  if (after !== before) {
    writeFileSync(path, after);
    console.log(`${file}: configuration table updated`);
  } else {
    console.log(`${file}: up to date`);
  }
}
