import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configKeys } from '../../core/config/schema.js';
import { PALABRE_SECTIONS } from '../../actors/palabreConfig.js';

/** The systemd unit and wrapper of deploy/: valid shell, and every variable they set exists. */
const ROOT = join(import.meta.dirname, '..', '..');
const read = (f: string) => readFileSync(join(ROOT, 'deploy', f), 'utf8');

describe('deploy/', () => {
  it('wrapper is valid bash and runs `palabre skull`', () => {
    execFileSync('bash', ['-n', join(ROOT, 'deploy', 'skull-ai.sh')]);
    expect(read('skull-ai.sh')).toMatch(/exec "\$NODE_BIN" \$NODE_FLAGS "\$PALABRE_HOME\/bin\/palabre\.js" skull/);
  });

  it('unit runs the wrapper, restarts on failure, and only sets known configuration keys', () => {
    const unit = read('skull-ai.service');
    expect(unit).toMatch(/^ExecStart=\/opt\/Skull\/bin\/skull-ai\.sh$/m);
    expect(unit).toMatch(/^Restart=on-failure$/m);
    const known = new Set([...configKeys(PALABRE_SECTIONS), 'PALABRE_HOME']);
    const set = [...unit.matchAll(/^Environment=([A-Z_]+)=/gm)].map((m) => m[1]!);
    const env = [...read('skull-ai.env.example').matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]!);
    expect([...set, ...env].filter((k) => !known.has(k))).toEqual([]);
  });
});
