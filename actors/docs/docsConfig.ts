import { z } from 'zod';
import { configSection, type ConfigValues } from '../../core/config/section.js';
import { positiveInt, secret } from '../../core/config/keyTypes.js';

/**
 * The docs assistant's section (docs/docs-assistant.md), declared by the docs surface.
 * Its own module, zod only: `actors/surfaces.ts` carries it eagerly while the surface's code
 * stays unloaded.
 */
export const docsConfig = configSection({
  title: 'Docs assistant',
  secrets: ['CHAT_API_KEY'],
  shape: {
    CORPUS_DIR: z.string().default('docs').describe('Folder of Markdown/MDX/text the assistant answers from (indexed under DATA_DIR/index, re-indexed when files change)'),
    CHAT_PROVIDER: z.enum(['auto', 'openai', 'anthropic', 'gemini', 'offline']).default('auto').describe('Provider for the docs assistant'),
    CHAT_MODEL: z.string().min(1).default('claude-sonnet-5-5').describe('Model of the docs assistant (see docs/providers.md)'),
    CHAT_BASE_URL: z.string().url().optional().describe('Endpoint for the docs assistant only (overrides the provider-wide base URL; with CHAT_PROVIDER=auto it means an OpenAI-compatible server)'),
    CHAT_API_KEY: secret.describe('Key for the docs assistant only (overrides the provider-wide key)'),
    CHAT_TOP_K: positiveInt.max(50).default(5).describe('Passages retrieved per question'),
    CHAT_SCORE_THRESHOLD: z.coerce.number().min(0).max(1).default(0.17)
      .describe('Low bound of the guard: out of scope (no model call) when no retrieved passage reaches this score, the IDF-weighted share of the question\'s words a passage contains (0–1). Default: the model file\'s `bounds.low`, chosen by cross-validation, see docs/docs-assistant.md'),
    CHAT_SCORE_CONFIDENT: z.coerce.number().min(0).max(1).default(0.803)
      .describe('High bound of the guard: from this probability on, answers carry confidence "high"; between CHAT_SCORE_THRESHOLD and this bound the assistant asks the model which passages answer (offline: answers with confidence "low"). Default: the model file\'s `bounds.high`, chosen by cross-validation, see docs/docs-assistant.md'),
    CHAT_RELEVANCE_MODEL: z.string().default('').describe('Model of the relevance call made between the two bounds (empty: CHAT_MODEL); a small, cheap model is enough'),
    CHAT_RELEVANCE_TIMEOUT_MS: positiveInt.max(60_000).default(4000).describe('Deadline of the relevance call, ms; past it the answer is given with confidence "low"'),
    CHAT_CLAIM_CHECK: z.enum(['on', 'off']).default('on').describe('With a provider, every sentence of an answer is checked against the passage its [n] cites (one structured call with the relevance model and deadline) before it is shown; unsupported sentences are removed, none left → the refusal'),
    DOCS_GAPS_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(30).describe('Days the questions refused or answered with confidence "low" are kept for /admin/docs/gaps (what the docs are missing)'),
    CHAT_TEMPERATURE: z.coerce.number().min(0).max(1).default(0.2).describe('Generation temperature'),
    CHAT_MAX_TOKENS: positiveInt.default(800).describe('Answer token limit'),
    CHAT_HISTORY_TURNS: z.coerce.number().int().min(0).max(20).default(4).describe('Turns of history sent to the model'),
    EMBEDDINGS_PROVIDER: z.enum(['none', 'openai', 'gemini']).default('none').describe('Embeddings for hybrid retrieval (BM25 + vectors fused by reciprocal rank); `openai` uses OPENAI_API_KEY/OPENAI_BASE_URL, `gemini` GEMINI_API_KEY/GOOGLE_GEMINI_BASE_URL'),
    DOCS_LEXICONS: z.string().default('').describe('Folder of the dictionaries questions are expanded with (thesauri, French ↔ English; bash actors/retrieval/lexicons/install.sh). Empty: $PALABRE_CACHE_DIR/lexicons; `off`: no expansion. Missing files: the assistant ranks without expansion and says so'),
    EMBEDDINGS_MODEL: z.string().default('text-embedding-3-small').describe('Embedding model (with EMBEDDINGS_PROVIDER=gemini the OpenAI default becomes gemini-embedding-001)'),
  },
});

export type DocsConfig = ConfigValues<typeof docsConfig>;
