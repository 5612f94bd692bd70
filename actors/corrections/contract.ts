import type { AppContext } from '../../core/surfaceContract.js';
import type { LlmConfig } from '../llm/llmConfig.js';
import type { CorrectionsConfig } from './correctionsConfig.js';
import type { CorrectionService } from '../../machines/correctionContract.js';

/** What grading reads of the configuration (a surface that grades types its context with it). */
export type { CorrectionsConfig };

/**
 * The corrections surface's port for the other surfaces (T2 grades its transcripts through it),
 * loaded explicitly: the engine module is imported when a surface first asks for the service, so
 * a process that never grades does not load it. The only value another surface may import from
 * actors/corrections/ (test/architecture/layers.ts).
 */
export async function loadCorrectionService(ctx: AppContext<CorrectionsConfig & LlmConfig>): Promise<CorrectionService> {
  const { createCorrectionService } = await import('./service.js');
  return createCorrectionService(ctx);
}
