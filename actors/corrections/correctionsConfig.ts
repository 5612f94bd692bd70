import { z } from 'zod';
import { configSection, type ConfigValues } from '../../core/config/section.js';
import { ms, positiveInt, secret } from '../../core/config/keyTypes.js';

/**
 * The corrections' section (docs/corrections.md#configuration), declared by the corrections
 * surface. Its own module, zod only: `actors/surfaces.ts` carries it eagerly while the surface's
 * code stays unloaded.
 */
export const correctionsConfig = configSection({
  title: 'Corrections',
  secrets: ['CORRECTION_API_KEY'],
  shape: {
    CORRECTION_PROVIDER: z.enum(['auto', 'openai', 'anthropic', 'gemini', 'offline']).default('auto').describe('Provider for graded reports'),
    CORRECTION_MODEL: z.string().min(1).default('deepseek-flash')
      .describe('Grading model: DeepSeek in the specs (their deepseek-chat was retired on 2026-07-24; deepseek-flash is the current name, see docs/providers.md)'),
    CORRECTION_BASE_URL: z.string().url().optional().describe('Endpoint for corrections only, e.g. https://api.deepseek.com (overrides OPENAI_BASE_URL…; with CORRECTION_PROVIDER=auto it means an OpenAI-compatible server)'),
    CORRECTION_API_KEY: secret.describe('Key for corrections only (overrides the provider-wide key)'),
    CORRECTION_TIMEOUT_MS: ms.default(55000).describe('Server-side limit of one correction (the client waits 60 s); past it minus 3 s the detectors answer alone'),
    CORRECTION_ATTEMPT_TIMEOUT_MS: ms.default(40000).describe('Per-attempt timeout of the grading model call (a full JSON report takes longer than a chat reply)'),
    CORRECTION_MAX_TOKENS: positiveInt.default(4000).describe('Output token limit of one grading call'),
    GRAMMALECTE: z.enum(['auto', 'off']).default('auto').describe('Offline grammar checker: `auto` runs Grammalecte when found (see GRAMMALECTE_PATH), `off` keeps the built-in detectors alone'),
    GRAMMALECTE_PATH: z.string().optional().describe('Folder holding the `grammalecte` Python package (default: $PALABRE_CACHE_DIR/grammalecte/pythonpath, then the Debian libreoffice-grammalecte folder)'),
    GRAMMALECTE_PYTHON: z.string().default('python3').describe('Python 3 interpreter running the Grammalecte sidecar'),
    GRAMMALECTE_WORKERS: positiveInt.max(16).default(1)
      .describe('Grammalecte processes checking productions (~72 MB each, one core each while checking); more shortens the wait when many candidates finish together, never changes a grade'),
    GRAMMALECTE_TIMEOUT_MS: ms.default(5000).describe('Limit of one Grammalecte check (past it the sidecar is restarted and the detectors answer alone)'),
  },
});

export type CorrectionsConfig = ConfigValues<typeof correctionsConfig>;
