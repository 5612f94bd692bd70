import { z } from 'zod';
import { ms } from './shared.js';

/** T2 live (specs/t2-live.fr.md). Owned by the T2 surface. */
export const t2Section = {
  T2_LIVE_MODEL: z.string().default('gemini-2.5-flash-native-audio-preview-09-2025').describe('Gemini Live model'),
  T2_EXAM_DURATION_MS: ms.default(330000).describe('Exam timer (5 min 30 s)'),
  T2_WARNING_BEFORE_MS: ms.default(30000).describe('Warning before the automatic end'),
  T2_IDLE_TIMEOUT_MS: ms.default(60000).describe('Session ends after this long without any frame'),
};
