import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_DEFS, helpOf, type CommandName } from '../../cli/definitions.js';
import { CLI_DOC_FILE, renderCliDoc } from '../../cli/cliDoc.js';
import { PROJECT_ROOT } from '../../core/version.js';

describe('docs/cli.md', () => {
  it(`${CLI_DOC_FILE} holds the current commands and exit codes (run \`npm run docs:cli\` if this fails)`, () => {
    expect(readFileSync(join(PROJECT_ROOT, CLI_DOC_FILE), 'utf8')).toBe(renderCliDoc());
  });

  it('documents exit codes 0 and 2 for every command, and ask refusing with 3', () => {
    for (const [name, def] of Object.entries(COMMAND_DEFS)) {
      expect(Object.keys(def.exits), name).toEqual(expect.arrayContaining(['0', '2']));
      expect(helpOf(name as CommandName)).toContain('Exit codes:');
    }
    expect(COMMAND_DEFS.ask.exits[3]).toMatch(/refused/);
  });
});
