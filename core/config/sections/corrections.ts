import { z } from 'zod';
import { ms, positiveInt } from './shared.js';

/** Corrections (docs/corrections.md#configuration). Owned by the corrections surface. */
export const correctionsSection = {
  CORRECTION_PROVIDER: z.enum(['auto', 'openai', 'anthropic', 'gemini', 'offline']).default('auto').describe('Provider for graded reports'),
  CORRECTION_MODEL: z.string().default('deepseek-chat').describe('Grading model (DeepSeek through OPENAI_BASE_URL in the specs)'),
  CORRECTION_TIMEOUT_MS: ms.default(55000).describe('Server-side limit of one correction (the client waits 60 s); past it minus 3 s the detectors answer alone'),
  CORRECTION_ATTEMPT_TIMEOUT_MS: ms.default(40000).describe('Per-attempt timeout of the grading model call (a full JSON report takes longer than a chat reply)'),
  CORRECTION_MAX_TOKENS: positiveInt.default(4000).describe('Output token limit of one grading call'),
};
