import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOC_FILES, renderConfigTables, undocumentedKeys, withConfigTables } from '../../core/config/configDoc.js';
import { configShape } from '../../core/config/schema.js';
import { PROJECT_ROOT } from '../../core/version.js';

describe('configuration tables', () => {
  it('every key has a .describe() text and a row', () => {
    expect(undocumentedKeys()).toEqual([]);
    const table = renderConfigTables();
    for (const key of Object.keys(configShape)) expect(table).toContain(`| \`${key}\` |`);
  });

  for (const file of CONFIG_DOC_FILES) {
    it(`${file} holds the current table (run \`npm run docs:config\` if this fails)`, () => {
      const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
      expect(withConfigTables(text, file)).toBe(text);
    });
  }
});
