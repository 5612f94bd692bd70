import type { T2Config } from '../t2/t2Config.js';
import type { LlmConfig } from './llmConfig.js';

/**
 * Gemini Live ids differ per backend: the spec's `gemini-live-2.5-flash-native-audio` is a Vertex
 * AI id, and a Developer API key (the default backend) never opens a session with it. Sources and
 * the date they were read: docs/providers.md.
 */
export const LIVE_MODEL_DEVELOPER = 'gemini-3.8-live';
export const LIVE_MODEL_VERTEX = 'gemini-live-2.5-flash-native-audio';

/** T2_LIVE_MODEL when set, else the default of the backend GEMINI_VERTEX selects. */
export function liveModelFor(config: Pick<T2Config & LlmConfig, 'T2_LIVE_MODEL' | 'GEMINI_VERTEX'>): string {
  return config.T2_LIVE_MODEL ?? (config.GEMINI_VERTEX ? LIVE_MODEL_VERTEX : LIVE_MODEL_DEVELOPER);
}
