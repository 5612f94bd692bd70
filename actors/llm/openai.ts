/**
 * OpenAI Chat Completions adapter (official `openai` SDK). Through `baseURL` it also serves every
 * OpenAI-compatible server: DeepSeek, Ollama, llama.cpp server, vLLM.
 *
 * The SDK's own retries are off (`maxRetries: 0`): llmCall owns retries, and doubling them would
 * multiply latency under a 429 storm. Parameters come from the capability table, so a GPT-5 or
 * o-series model never receives `temperature`/`top_p` and gets `max_completion_tokens`.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { capabilitiesFor } from './capabilities.js';
import { callSignal, citationsFromMarkers, elapsed, now, withSources } from './common.js';
import { abortError, emptyText, errorFromStatus, errorFromUnknown, malformed } from './llmErrors.js';
import { LlmError, type GenerateRequest, type GenerateResult, type LlmProvider, type Usage } from '../../machines/llmPort.js';

export interface OpenAIProviderOptions {
  apiKey: string;
  /** e.g. `https://api.deepseek.com/v1`, `http://127.0.0.1:11434/v1` (Ollama); default api.openai.com. */
  baseURL?: string;
  /** Safety net only; llmCall sets the real per-attempt deadline through the signal. */
  timeoutMs?: number;
}

type Params = ChatCompletionCreateParamsNonStreaming;

/** The request body for this model, honouring the capability table. Exported for tests and docs. */
export function openAIParams(req: GenerateRequest): Params {
  const caps = capabilitiesFor('openai', req.model);
  const messages: ChatCompletionMessageParam[] = [];
  if (req.system) messages.push({ role: 'system', content: req.system });
  for (const m of withSources(req)) messages.push({ role: m.role, content: m.content });
  const params: Params = { model: req.model, messages };
  if (req.maxTokens !== undefined) {
    if (caps.limitField === 'max_completion_tokens') params.max_completion_tokens = req.maxTokens;
    else params.max_tokens = req.maxTokens;
  }
  if (caps.temperature && req.temperature !== undefined) params.temperature = req.temperature;
  if (caps.topP && req.topP !== undefined) params.top_p = req.topP;
  if (caps.reasoningEffort && req.reasoningEffort !== undefined) {
    // The low-latency setting has a different name per generation (see capabilities.ts).
    params.reasoning_effort = req.reasoningEffort === 'minimal' ? caps.minimalEffort : req.reasoningEffort;
  }
  if (req.json && caps.jsonMode) params.response_format = { type: 'json_object' };
  return params;
}

interface RawUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  /** DeepSeek's name for cached input. */
  prompt_cache_hit_tokens?: number;
}

function usageOf(u: RawUsage | null | undefined, latencyMs: number): Usage {
  return {
    inputTokens: u?.prompt_tokens ?? 0,
    outputTokens: u?.completion_tokens ?? 0,
    cachedTokens: u?.prompt_tokens_details?.cached_tokens ?? u?.prompt_cache_hit_tokens ?? 0,
    cacheCreationTokens: 0,
    latencyMs,
  };
}

function mapError(err: unknown, signal: AbortSignal | undefined): LlmError {
  if (err instanceof LlmError) return err;
  if (err instanceof APIUserAbortError || signal?.aborted) return abortError('openai', signal, err);
  if (err instanceof APIConnectionTimeoutError) return new LlmError('timeout', 'openai: request timed out', { provider: 'openai', cause: err });
  if (err instanceof APIConnectionError) {
    const mapped = errorFromUnknown('openai', err.cause ?? err, signal);
    return mapped.kind === 'malformed' ? new LlmError('network', `openai: ${mapped.message}`, { provider: 'openai', cause: err }) : mapped;
  }
  if (err instanceof APIError && typeof err.status === 'number') return errorFromStatus('openai', err.status, err.headers, err.message, err);
  return errorFromUnknown('openai', err, signal);
}

export function createOpenAIProvider(opts: OpenAIProviderOptions): LlmProvider {
  const client = new OpenAI({
    apiKey: opts.apiKey,
    baseURL: opts.baseURL,
    maxRetries: 0,
    timeout: opts.timeoutMs ?? 600_000,
  });

  async function complete(req: GenerateRequest, params: Params, signal: AbortSignal | undefined, t0: number): Promise<GenerateResult> {
    const completion: unknown = await client.chat.completions.create(params, { signal });
    // A non-JSON 200 comes back from the SDK as a string: check the shape before trusting it.
    const c = completion as Partial<ChatCompletion> | null;
    if (!c || typeof c !== 'object' || !Array.isArray(c.choices)) throw malformed('openai', 'no choices');
    const choice = c.choices[0];
    const text = choice?.message?.content ?? '';
    const model = typeof c.model === 'string' && c.model ? c.model : req.model;
    if (!text.trim()) throw emptyText('openai', model);
    return {
      text,
      model,
      provider: 'openai',
      usage: usageOf(c.usage, elapsed(t0)),
      citations: citationsFromMarkers(text, req.documents),
      finishReason: choice?.finish_reason ?? undefined,
    };
  }

  async function stream(req: GenerateRequest, params: Params, signal: AbortSignal | undefined, t0: number): Promise<GenerateResult> {
    const onDelta = req.onDelta;
    const chunks = await client.chat.completions.create(
      { ...params, stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    let text = '';
    let model = '';
    let finishReason: string | undefined;
    let usage: RawUsage | null | undefined;
    for await (const chunk of chunks as AsyncIterable<ChatCompletionChunk>) {
      if (!chunk || !Array.isArray(chunk.choices)) throw malformed('openai', 'stream chunk without choices');
      if (chunk.model) model = chunk.model;
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      const delta = choice?.delta?.content;
      if (delta) {
        text += delta;
        onDelta?.(delta);
      }
      if (choice?.finish_reason) finishReason = choice.finish_reason;
    }
    // The SDK's stream ends quietly when its signal fires: an abort mid-answer is still an abort.
    if (signal?.aborted) throw abortError('openai', signal);
    model ||= req.model;
    if (!text.trim()) throw emptyText('openai', model);
    return { text, model, provider: 'openai', usage: usageOf(usage, elapsed(t0)), citations: citationsFromMarkers(text, req.documents), finishReason };
  }

  return {
    name: 'openai',
    async generate(req) {
      const t0 = now();
      const { signal, dispose } = callSignal(req);
      try {
        if (signal?.aborted) throw abortError('openai', signal);
        const params = openAIParams(req);
        return await (req.onDelta ? stream(req, params, signal, t0) : complete(req, params, signal, t0));
      } catch (err) {
        throw mapError(err, signal);
      } finally {
        dispose();
      }
    },
  };
}
