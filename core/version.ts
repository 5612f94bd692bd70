import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project root and version, found by walking up from this file to palabre's package.json.
 * Works the same from the sources (core/version.ts, run by tsx) and from the build
 * (dist/core/version.js), which sit at different depths.
 */
function findRoot(): { root: string; version: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'palabre') return { root: dir, version: pkg.version ?? '0.0.0' };
    }
    const parent = dirname(dir);
    if (parent === dir) return { root: process.cwd(), version: '0.0.0' };
    dir = parent;
  }
}

const found = findRoot();

/** Folder holding palabre's package.json. */
export const PROJECT_ROOT = found.root;
export const VERSION = found.version;
