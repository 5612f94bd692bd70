import { z } from 'zod';
import { configSection, type ConfigValues } from '../../core/config/section.js';
import { ms, nonNegativeInt, positiveInt, secret } from '../../core/config/keyTypes.js';

/**
 * The LLM providers' section: keys, endpoints, and the resilience knobs of llmCall and breaker.
 * A shared service's, like the providers it builds (actors/llm/llmServices.ts): every process
 * that calls a model loads it, whichever surfaces it starts.
 */
export const llmConfig = configSection({
  title: 'LLM providers and resilience',
  secrets: ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY'],
  shape: {
    LLM_PROVIDER: z.enum(['auto', 'openai', 'anthropic', 'gemini', 'offline']).default('auto')
      .describe('Default provider; `auto` picks the first with a key (anthropic, openai, gemini), else offline'),
    OPENAI_API_KEY: secret.describe('OpenAI (or compatible server) key'),
    OPENAI_BASE_URL: z.string().url().optional().describe('OpenAI-compatible endpoint (DeepSeek, Ollama, llama.cpp, vLLM)'),
    ANTHROPIC_API_KEY: secret.describe('Anthropic key'),
    ANTHROPIC_BASE_URL: z.string().url().optional().describe('Anthropic endpoint'),
    GEMINI_API_KEY: secret.describe('Gemini key (text and Live)'),
    GOOGLE_GEMINI_BASE_URL: z.string().url().optional().describe('Gemini endpoint (text and Live)'),
    GEMINI_VERTEX: z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1').default(false)
      .describe('Use Vertex AI instead of the Gemini Developer API'),
    GOOGLE_CLOUD_PROJECT: z.string().optional().describe('Vertex AI project'),
    GOOGLE_CLOUD_LOCATION: z.string().optional().describe('Vertex AI location'),
    LLM_ATTEMPT_TIMEOUT_MS: ms.default(12000).describe('Per-attempt timeout of llmCall'),
    LLM_MAX_RETRIES: nonNegativeInt.max(10).default(3).describe('Retries of transient errors'),
    LLM_BACKOFF_BASE_MS: ms.default(200).describe('First backoff delay (doubled each retry, plus 100–400 ms jitter)'),
    LLM_RETRY_AFTER_CAP_MS: ms.default(10000).describe('Longest retry-after honoured'),
    BREAKER_FAILURES: positiveInt.default(5).describe('Failures that open the breaker'),
    BREAKER_WINDOW_MS: ms.default(60000).describe('Window in which they are counted'),
    BREAKER_COOLDOWN_MS: ms.default(30000).describe('How long the fallback model serves once open'),
  },
});

export type LlmConfig = ConfigValues<typeof llmConfig>;
