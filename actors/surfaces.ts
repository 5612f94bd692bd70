import { lazySurface } from '../core/surfaceContract.js';
import { skullConfig } from './skull/skullConfig.js';
import { docsConfig } from './docs/docsConfig.js';
import { correctionsConfig } from './corrections/correctionsConfig.js';
import { t2Config } from './t2/t2Config.js';
import { inspectConfig } from './inspect/inspectConfig.js';
import { echoConfig } from './echo/echoConfig.js';

/**
 * The surfaces `palabre serve` starts, in this order (and stops in reverse order): one line per
 * surface. Each is a lazy import so that nothing a surface needs is loaded by a command that does
 * not start it (`palabre skull` on a Pi must not pull in the web server); its configuration section
 * comes with the line, eagerly: a zod-only module, since every key must be known before the
 * configuration loads (actors/palabreConfig.ts).
 */
export const surfaces = [
  lazySurface(skullConfig, () => import('./skull/surface.js').then((m) => m.skullSurface)),
  lazySurface(docsConfig, () => import('./docs/surface.js').then((m) => m.docsSurface)),
  lazySurface(correctionsConfig, () => import('./corrections/surface.js').then((m) => m.correctionsSurface)),
  lazySurface(t2Config, () => import('./t2/surface.js').then((m) => m.t2Surface)),
  // Last: the inspector sees every other surface's actors.
  lazySurface(inspectConfig, () => import('./inspect/surface.js').then((m) => m.inspectSurface)),
] as const;

/**
 * The example surface (docs/architecture.md § Adding a surface): an echo conversation over a
 * WebSocket. Not in the default list; the tests start it through the same contract.
 */
export const echoSurface = lazySurface(echoConfig, () => import('./echo/surface.js').then((m) => m.echoSurface));
