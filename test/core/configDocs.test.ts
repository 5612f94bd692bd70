import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOC_FILES, renderConfigTables, undocumentedKeys, withConfigTables } from '../../core/config/configDoc.js';
import { configKeys } from '../../core/config/schema.js';
import { PALABRE_SECTIONS } from '../../actors/palabreConfig.js';
import { PROJECT_ROOT } from '../../core/version.js';

describe('configuration tables', () => {
  it('every key has a .describe() text and a row', () => {
    expect(undocumentedKeys(PALABRE_SECTIONS)).toEqual([]);
    const table = renderConfigTables(PALABRE_SECTIONS);
    for (const key of configKeys(PALABRE_SECTIONS)) expect(table).toContain(`| \`${key}\` |`);
  });

  for (const file of CONFIG_DOC_FILES) {
    it(`${file} holds the current table (run \`npm run docs:config\` if this fails)`, () => {
      const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
      expect(withConfigTables(text, file, PALABRE_SECTIONS)).toBe(text);
    });
  }
});
