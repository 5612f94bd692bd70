import type { Surface } from './surfaceContract.js';

/**
 * The surfaces `palabre serve` starts, in this order (and stops in reverse order).
 * Each entry is a lazy import so that nothing a surface needs is loaded by commands that do not
 * start it (`palabre skull` on a Pi must not pull in the web server).
 *
 * Surface engineers: add ONE line for your surface, e.g.
 *   () => import('../actors/skull/surface.js').then((m) => m.skullSurface),
 */
export type SurfaceLoader = () => Promise<Surface>;

export const surfaces: SurfaceLoader[] = [
  () => import('../actors/skull/surface.js').then((m) => m.skullSurface),
  () => import('../actors/docs/surface.js').then((m) => m.docsSurface),
  () => import('../actors/corrections/surface.js').then((m) => m.correctionsSurface),
  () => import('../actors/t2/surface.js').then((m) => m.t2Surface),
  // Last: the inspector sees every other surface's actors.
  () => import('../actors/inspect/surface.js').then((m) => m.inspectSurface),
];
