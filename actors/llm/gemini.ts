/**
 * Gemini text adapter (`@google/genai`, `models.generateContent` / `generateContentStream`).
 * The Live API (T2) lives elsewhere; this file is text only.
 *
 * The SDK's `ApiError` carries the status but not the headers, so each call passes its own
 * `fetch` (per-request `httpOptions.fetch`) that keeps the last response's `retry-after`; the
 * `RetryInfo.retryDelay` of a 429 body is used when the header is absent. The SDK does not retry
 * unless `retryOptions` is given: we give none, llmCall owns retries.
 */
import { ApiError, GoogleGenAI, type Content, type GenerateContentConfig, type GenerateContentResponse } from '@google/genai';
import { capabilitiesFor } from './capabilities.js';
import { callSignal, citationsFromMarkers, elapsed, now, withSources } from './common.js';
import { abortError, emptyText, errorFromStatus, errorFromUnknown, malformed, parseRetryAfter } from './llmErrors.js';
import { LlmError, type GenerateRequest, type GenerateResult, type LlmProvider, type Usage } from '../../machines/llmPort.js';

export interface GeminiProviderOptions {
  apiKey?: string;
  /** `GOOGLE_GEMINI_BASE_URL`: a proxy or a local fake. */
  baseUrl?: string;
  vertex?: { project?: string; location?: string };
  timeoutMs?: number;
}

export interface GeminiRequest {
  model: string;
  contents: Content[];
  config: GenerateContentConfig;
}

/** The generateContent request for this call (without signal/fetch). Exported for tests. */
export function geminiRequest(req: GenerateRequest): GeminiRequest {
  const caps = capabilitiesFor('gemini', req.model);
  const contents: Content[] = withSources(req).map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] }));
  const config: GenerateContentConfig = {};
  if (req.system) config.systemInstruction = req.system;
  if (req.maxTokens !== undefined) config.maxOutputTokens = req.maxTokens;
  if (caps.temperature && req.temperature !== undefined) config.temperature = req.temperature;
  if (caps.topP && req.topP !== undefined) config.topP = req.topP;
  if (req.json) config.responseMimeType = 'application/json';
  return { model: req.model, contents, config };
}

function usageOf(r: GenerateContentResponse | undefined, latencyMs: number): Usage {
  const u = r?.usageMetadata;
  return {
    inputTokens: u?.promptTokenCount ?? 0,
    // Thinking tokens are billed as output: count them where the other providers count reasoning.
    outputTokens: (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0),
    cachedTokens: u?.cachedContentTokenCount ?? 0,
    cacheCreationTokens: 0,
    latencyMs,
  };
}

/** `"retryDelay": "3s"` inside a RESOURCE_EXHAUSTED body (the SDK puts the body in the message). */
function retryDelayFromBody(message: string): number | undefined {
  const m = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(message);
  return m?.[1] ? Math.round(Number(m[1]) * 1000) : undefined;
}

function textOf(r: GenerateContentResponse): string {
  let text = '';
  for (const part of r.candidates?.[0]?.content?.parts ?? []) {
    // Thought summaries are not the answer.
    if (typeof part.text === 'string' && part.thought !== true) text += part.text;
  }
  return text;
}

export function createGeminiProvider(opts: GeminiProviderOptions): LlmProvider {
  const ai = new GoogleGenAI({
    ...(opts.vertex ? { vertexai: true, project: opts.vertex.project, location: opts.vertex.location } : { apiKey: opts.apiKey }),
    httpOptions: {
      ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
      // Vertex speaks v1beta1 (the SDK default there); the Developer API is pinned to v1beta.
      ...(opts.vertex ? {} : { apiVersion: 'v1beta' }),
      ...(opts.timeoutMs ? { timeout: opts.timeoutMs } : {}),
    },
  });

  function mapError(err: unknown, signal: AbortSignal | undefined, headers: Headers | undefined): LlmError {
    if (err instanceof LlmError) return err;
    if (signal?.aborted) return abortError('gemini', signal, err);
    if (err instanceof ApiError) {
      return errorFromStatus('gemini', err.status, headers, err.message, err, parseRetryAfter(headers) ?? retryDelayFromBody(err.message));
    }
    return errorFromUnknown('gemini', err, signal);
  }

  async function call(req: GenerateRequest, signal: AbortSignal | undefined, t0: number, fetchFn: typeof fetch): Promise<GenerateResult> {
    const { model, contents, config } = geminiRequest(req);
    const full: GenerateContentConfig = { ...config, abortSignal: signal, httpOptions: { fetch: fetchFn } };
    let text = '';
    let last: GenerateContentResponse | undefined;
    let finishReason: string | undefined;
    if (req.onDelta) {
      for await (const chunk of await ai.models.generateContentStream({ model, contents, config: full })) {
        if (!chunk || typeof chunk !== 'object') throw malformed('gemini', 'stream chunk');
        const delta = textOf(chunk);
        if (delta) {
          text += delta;
          req.onDelta(delta);
        }
        if (chunk.usageMetadata) last = chunk;
        finishReason = chunk.candidates?.[0]?.finishReason ?? finishReason;
      }
    } else {
      const r = await ai.models.generateContent({ model, contents, config: full });
      if (!r || typeof r !== 'object') throw malformed('gemini', 'no response');
      if (r.promptFeedback?.blockReason) {
        // A blocked prompt is not transient: retrying the same prompt gets the same refusal.
        throw new LlmError('bad_request', `gemini: prompt blocked (${r.promptFeedback.blockReason})`, { provider: 'gemini' });
      }
      if (!Array.isArray(r.candidates)) throw malformed('gemini', 'no candidates');
      text = textOf(r);
      last = r;
      finishReason = r.candidates?.[0]?.finishReason;
    }
    if (signal?.aborted) throw abortError('gemini', signal);
    const answered = last?.modelVersion || model;
    if (!text.trim()) throw emptyText('gemini', answered);
    return { text, model: answered, provider: 'gemini', usage: usageOf(last, elapsed(t0)), citations: citationsFromMarkers(text, req.documents), finishReason };
  }

  return {
    name: 'gemini',
    async generate(req) {
      const t0 = now();
      const { signal, dispose } = callSignal(req);
      let headers: Headers | undefined;
      const fetchFn: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        if (!res.ok) headers = res.headers;
        return res;
      };
      try {
        if (signal?.aborted) throw abortError('gemini', signal);
        return await call(req, signal, t0, fetchFn);
      } catch (err) {
        throw mapError(err, signal, headers);
      } finally {
        dispose();
      }
    },
  };
}
