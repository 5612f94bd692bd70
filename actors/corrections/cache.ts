import { defaultCacheDir } from '../../core/cacheDir.js';

/** PALABRE_CACHE_DIR (machine-wide cache: Grammalecte's Python core lives in it). */
let configuredDir: string | undefined;

export function setCacheDir(dir: string | undefined): void {
  configuredDir = dir;
}

export function cacheDir(): string {
  return configuredDir ?? defaultCacheDir();
}
