import type { AppContext } from '../../core/surfaceContract.js';
import type { CorrectionService } from '../../machines/correctionContract.js';

/**
 * The corrections surface's port for the other surfaces (T2 grades its transcripts through it),
 * loaded explicitly: the engine module is imported when a surface first asks for the service, so
 * a process that never grades does not load it. The only value another surface may import from
 * actors/corrections/ (test/architecture/layers.ts).
 */
export async function loadCorrectionService(ctx: AppContext): Promise<CorrectionService> {
  const { createCorrectionService } = await import('./service.js');
  return createCorrectionService(ctx);
}
