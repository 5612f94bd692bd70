import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * The machine-wide cache palabre keeps its offline engines in (Grammalecte's Python core, the docs
 * assistant's dictionaries): PALABRE_CACHE_DIR, else the user's cache folder as the XDG base
 * directory specification names it ($XDG_CACHE_HOME/palabre, else ~/.cache/palabre). Not the system
 * temporary folder, which is emptied at reboot. The install scripts and `npm install` use the same
 * rule (scripts/install-engines.mjs, actors/…/install.sh).
 */
export function defaultCacheDir(env: Record<string, string | undefined> = process.env): string {
  if (env.PALABRE_CACHE_DIR) return env.PALABRE_CACHE_DIR;
  // The specification ignores a relative XDG_CACHE_HOME.
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.cache');
  return join(base, 'palabre');
}
