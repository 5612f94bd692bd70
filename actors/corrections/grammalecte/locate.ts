import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where Grammalecte's Python package is: the configured folder, the one the install script fills
 * (`$PALABRE_CACHE_DIR/grammalecte/pythonpath`), or Debian's full `libreoffice-grammalecte` install.
 */

const DEBIAN_PYTHONPATH = '/usr/lib/libreoffice/share/extensions/grammalecte/pythonpath';
export const INSTALL_HINT = 'npm run grammalecte:install (downloads Debian\'s libreoffice-grammalecte, ~5 MB, and keeps its Python core, 27 MB, in $PALABRE_CACHE_DIR/grammalecte, by default ~/.cache/palabre/grammalecte)';

const hasPackage = (dir: string) => existsSync(join(dir, 'grammalecte', 'fr', 'gc_engine.py'));

export function locateGrammalecte(configured: string | undefined, cacheDir: string): { path: string } | { missing: string } {
  if (configured) return hasPackage(configured) ? { path: configured } : { missing: `GRAMMALECTE_PATH=${configured} holds no grammalecte/fr package` };
  for (const dir of [join(cacheDir, 'grammalecte', 'pythonpath'), DEBIAN_PYTHONPATH]) if (hasPackage(dir)) return { path: dir };
  return { missing: `Grammalecte not found in ${join(cacheDir, 'grammalecte')} nor ${DEBIAN_PYTHONPATH}` };
}
