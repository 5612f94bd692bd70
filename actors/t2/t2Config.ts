import { z } from 'zod';
import { configSection, type ConfigValues } from '../../core/config/section.js';
import { ms, positiveInt, secret } from '../../core/config/keyTypes.js';

/**
 * T2 live's section (docs/t2-live.md#configuration), declared by the T2 surface.
 * Its own module, zod only: `actors/surfaces.ts` carries it eagerly while the surface's code
 * stays unloaded.
 */
export const t2Config = configSection({
  title: 'T2 live',
  secrets: ['T2_TEXT_API_KEY'],
  shape: {
    T2_LIVE_MODEL: z.string().min(1).optional()
      .describe('Gemini Live model of the interlocutor; default depends on the backend: gemini-3.8-live on the Developer API, gemini-live-2.5-flash-native-audio (the Vertex id) with GEMINI_VERTEX=true'),
    T2_EXAM_DURATION_MS: ms.default(330000).describe('Exam timer (5 min 30 s), then the session ends by itself'),
    T2_WARNING_BEFORE_MS: ms.default(30000).describe('Warning sent this long before the automatic end'),
    T2_IDLE_TIMEOUT_MS: ms.default(60000).describe('Session ends after this long without any frame from the candidate'),
    T2_RESUME_GRACE_MS: ms.default(30000).describe('A dropped /t2/live socket: the session waits this long for the same candidate to reconnect (then resumes), and after it ends as disconnected and is graded; 0 ends it at once'),
    T2_LEASE_TTL_MS: ms.min(300).default(15000).describe('Several instances on one database: a live session\'s claim on its candidate (and an instance\'s on being alive) expires this long after its instance stopped renewing it (every third of it); then another instance may take the candidate and closes the dead instance\'s sessions as interrupted'),
    T2_CONNECT_TIMEOUT_MS: ms.default(15000).describe('Limit for the Gemini Live connection (setupComplete)'),
    T2_MAX_FRAME_BYTES: positiveInt.default(65536).describe('Largest client frame accepted on /t2/live (bytes); larger ones get an error message'),
    T2_MAX_SESSIONS: positiveInt.default(500).describe('Concurrent /t2/live sessions; more are closed with 4429'),
    T2_RECORDINGS_DIR: z.string().optional().describe('Folder of the session recordings (default DATA_DIR/t2-audio)'),
    T2_TEXT_PROVIDER: z.enum(['offline', 'auto', 'openai', 'anthropic', 'gemini']).default('offline')
      .describe('Provider of the text-mode interlocutor used when GEMINI_API_KEY is unset (offline = answers from the fact sheet)'),
    T2_TEXT_MODEL: z.string().min(1).default('gpt-6-luna').describe('Model of the text-mode interlocutor (when T2_TEXT_PROVIDER is not offline)'),
    T2_TEXT_BASE_URL: z.string().url().optional().describe('Endpoint for the text-mode interlocutor only (overrides the provider-wide base URL; with T2_TEXT_PROVIDER=auto it means an OpenAI-compatible server)'),
    T2_TEXT_API_KEY: secret.describe('Key for the text-mode interlocutor only (overrides the provider-wide key)'),
  },
});

export type T2Config = ConfigValues<typeof t2Config>;
