import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/version.js';

/**
 * The README promises Node 20.19 (package.json `engines`): every dependency installed must declare
 * engines that accept it, or `npm install` prints EBADENGINE on the Node the README says is enough.
 * Read from the installed packages (what `npm install` checks), not from the registry.
 */
const require = createRequire(join(PROJECT_ROOT, 'package.json'));
// npm's own range parser, present wherever npm installs (many dependencies use it).
const semver = require('semver') as { satisfies(v: string, range: string): boolean; minVersion(range: string): { version: string } | null };

interface Manifest { name: string; version: string; engines?: { node?: string }; dependencies?: Record<string, string>; devDependencies?: Record<string, string> }
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Manifest;

describe('declared Node engines', () => {
  const root = read(join(PROJECT_ROOT, 'package.json'));
  const promised = semver.minVersion(root.engines!.node!)!.version;

  it('the README states the Node version package.json declares', () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`Node ${promised.replace(/\.0$/, '')} or later`);
  });

  it(`every direct dependency accepts Node ${promised}`, () => {
    const refusing: string[] = [];
    for (const name of Object.keys({ ...root.dependencies, ...root.devDependencies })) {
      const m = read(join(PROJECT_ROOT, 'node_modules', name, 'package.json'));
      const range = m.engines?.node;
      if (range && !semver.satisfies(promised, range)) refusing.push(`${m.name}@${m.version} (node ${range})`);
    }
    expect(refusing).toEqual([]);
  });
});
