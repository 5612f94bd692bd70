import type { SurfaceLoader } from '../core/surfaceContract.js';

/**
 * The surfaces `palabre serve` starts, in this order (and stops in reverse order): one line per
 * surface. Each is a lazy import so that nothing a surface needs is loaded by a command that does
 * not start it (`palabre skull` on a Pi must not pull in the web server).
 */
export const surfaces: readonly SurfaceLoader[] = [
  () => import('./skull/surface.js').then((m) => m.skullSurface),
  () => import('./docs/surface.js').then((m) => m.docsSurface),
  () => import('./corrections/surface.js').then((m) => m.correctionsSurface),
  () => import('./t2/surface.js').then((m) => m.t2Surface),
  // Last: the inspector sees every other surface's actors.
  () => import('./inspect/surface.js').then((m) => m.inspectSurface),
];

/**
 * The example surface (docs/architecture.md § Adding a surface): an echo conversation over a
 * WebSocket. Not in the default list; the tests start it through the same contract.
 */
export const echoSurface: SurfaceLoader = () => import('./echo/surface.js').then((m) => m.echoSurface);
