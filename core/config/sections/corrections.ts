import { z } from 'zod';
import { ms } from './shared.js';

/** Corrections (specs/error-taxonomy.fr.md). Owned by the corrections surface. */
export const correctionsSection = {
  CORRECTION_PROVIDER: z.enum(['auto', 'openai', 'anthropic', 'gemini', 'offline']).default('auto').describe('Provider for graded reports'),
  CORRECTION_MODEL: z.string().default('deepseek-chat').describe('Grading model (DeepSeek through OPENAI_BASE_URL in the specs)'),
  CORRECTION_TIMEOUT_MS: ms.default(55000).describe('Server-side limit of one correction'),
};
