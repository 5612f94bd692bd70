import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PALABRE_CACHE_DIR (machine-wide cache: Grammalecte's Python core lives in it). */
let configuredDir: string | undefined;

export function setCacheDir(dir: string | undefined): void {
  configuredDir = dir;
}

export function cacheDir(): string {
  return configuredDir ?? process.env.PALABRE_CACHE_DIR ?? join(tmpdir(), 'palabre-cache');
}
