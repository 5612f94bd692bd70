/**
 * Anthropic Messages adapter (official `@anthropic-ai/sdk`).
 *
 * - The stable block (system prompt + fixed context) is sent as one system text block marked
 *   `cache_control: {type: 'ephemeral'}`, so repeated calls read it from the prompt cache.
 * - `documents` become `search_result` content blocks with `citations: {enabled: true}` in the last
 *   user turn; the `search_result_location` citations of the answer are mapped back to the
 *   document ids by `search_result_index`.
 * - Usage: `inputTokens` is the whole prompt (uncached + cache read + cache write), as the other
 *   providers count it; `cachedTokens` and `cacheCreationTokens` say how much of it hit the cache.
 */
import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  RawMessageStreamEvent,
  TextCitation,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { capabilitiesFor } from './capabilities.js';
import { callSignal, elapsed, now } from './common.js';
import { abortError, emptyText, errorFromStatus, errorFromUnknown, malformed } from './llmErrors.js';
import { LlmError, type Citation, type GenerateRequest, type GenerateResult, type LlmProvider, type SourceDocument, type Usage } from '../../machines/llmPort.js';

export interface AnthropicProviderOptions {
  apiKey: string;
  baseURL?: string;
  timeoutMs?: number;
  /** max_tokens is mandatory in the Messages API: used when the request gives none. */
  defaultMaxTokens?: number;
}

type Params = MessageCreateParamsNonStreaming;

function searchResult(doc: SourceDocument): ContentBlockParam {
  return {
    type: 'search_result',
    source: doc.source,
    title: doc.title,
    content: [{ type: 'text', text: doc.text }],
    citations: { enabled: true },
  };
}

/** The request body: cached system block, search results in the last user turn. Exported for tests. */
export function anthropicParams(req: GenerateRequest, defaultMaxTokens = 1024): Params {
  const caps = capabilitiesFor('anthropic', req.model);
  const messages: MessageParam[] = req.messages.map((m) => ({ role: m.role, content: m.content }));
  const docs = req.documents ?? [];
  if (docs.length > 0) {
    let idx = -1;
    for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'user') { idx = i; break; }
    const question = idx >= 0 ? String(messages[idx]?.content ?? '') : '';
    const content: ContentBlockParam[] = [...docs.map(searchResult), ...(question ? [{ type: 'text' as const, text: question }] : [])];
    if (idx >= 0) messages[idx] = { role: 'user', content };
    else messages.push({ role: 'user', content });
  }
  const params: Params = { model: req.model, max_tokens: req.maxTokens ?? defaultMaxTokens, messages };
  if (req.system) params.system = [{ type: 'text', text: req.system, cache_control: { type: 'ephemeral' } }];
  // API 2026-10-21 rejects sampling knobs; a row in capabilities.ts may re-enable them for a
  // compatible server that still takes them (sent as extra body fields the SDK types no longer list).
  const extra: Record<string, number> = {};
  if (caps.temperature && req.temperature !== undefined) extra.temperature = req.temperature;
  if (caps.topP && req.topP !== undefined) extra.top_p = req.topP;
  return Object.keys(extra).length > 0 ? { ...params, ...extra } : params;
}

/** `search_result_location` citations → the ids of the documents they point at. */
function mapCitation(c: TextCitation, docs: SourceDocument[] | undefined): Citation | undefined {
  if (c.type !== 'search_result_location' || !docs) return undefined;
  const doc = docs[c.search_result_index] ?? docs.find((d) => d.source === c.source);
  return doc ? { sourceId: doc.id, citedText: c.cited_text } : undefined;
}

interface RawUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

function usageOf(u: RawUsage, latencyMs: number): Usage {
  const read = u.cache_read_input_tokens ?? 0;
  const created = u.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: (u.input_tokens ?? 0) + read + created,
    outputTokens: u.output_tokens ?? 0,
    cachedTokens: read,
    cacheCreationTokens: created,
    latencyMs,
  };
}

function mapError(err: unknown, signal: AbortSignal | undefined): LlmError {
  if (err instanceof LlmError) return err;
  if (err instanceof APIUserAbortError || signal?.aborted) return abortError('anthropic', signal, err);
  if (err instanceof APIConnectionTimeoutError) return new LlmError('timeout', 'anthropic: request timed out', { provider: 'anthropic', cause: err });
  if (err instanceof APIConnectionError) {
    const mapped = errorFromUnknown('anthropic', err.cause ?? err, signal);
    return mapped.kind === 'malformed' ? new LlmError('network', `anthropic: ${mapped.message}`, { provider: 'anthropic', cause: err }) : mapped;
  }
  if (err instanceof APIError && typeof err.status === 'number') return errorFromStatus('anthropic', err.status, err.headers, err.message, err);
  return errorFromUnknown('anthropic', err, signal);
}

function addCitations(out: Citation[], list: TextCitation[] | null | undefined, docs: SourceDocument[] | undefined): void {
  for (const c of list ?? []) {
    const mapped = mapCitation(c, docs);
    if (mapped) out.push(mapped);
  }
}

export function createAnthropicProvider(opts: AnthropicProviderOptions): LlmProvider {
  const client = new Anthropic({ apiKey: opts.apiKey, baseURL: opts.baseURL, maxRetries: 0, timeout: opts.timeoutMs ?? 600_000 });
  const defaultMax = opts.defaultMaxTokens ?? 1024;

  async function complete(req: GenerateRequest, params: Params, signal: AbortSignal | undefined, t0: number): Promise<GenerateResult> {
    const res: unknown = await client.messages.create(params, { signal });
    const m = res as Partial<Message> | null;
    if (!m || typeof m !== 'object' || !Array.isArray(m.content) || !m.usage) throw malformed('anthropic', 'no content');
    let text = '';
    const citations: Citation[] = [];
    for (const block of m.content) {
      if (block.type !== 'text') continue;
      text += block.text;
      addCitations(citations, block.citations, req.documents);
    }
    const model = m.model || req.model;
    if (!text.trim()) throw emptyText('anthropic', model);
    return {
      text,
      model,
      provider: 'anthropic',
      usage: usageOf(m.usage, elapsed(t0)),
      citations: req.documents ? citations : undefined,
      finishReason: m.stop_reason ?? undefined,
    };
  }

  async function stream(req: GenerateRequest, params: Params, signal: AbortSignal | undefined, t0: number): Promise<GenerateResult> {
    const events = await client.messages.create({ ...params, stream: true }, { signal });
    let text = '';
    let model = '';
    let finishReason: string | undefined;
    const usage: RawUsage = {};
    const citations: Citation[] = [];
    for await (const ev of events as AsyncIterable<RawMessageStreamEvent>) {
      switch (ev.type) {
        case 'message_start':
          model = ev.message.model;
          Object.assign(usage, ev.message.usage);
          break;
        case 'content_block_delta':
          if (ev.delta.type === 'text_delta') {
            text += ev.delta.text;
            req.onDelta?.(ev.delta.text);
          } else if (ev.delta.type === 'citations_delta') {
            addCitations(citations, [ev.delta.citation], req.documents);
          }
          break;
        case 'message_delta':
          finishReason = ev.delta.stop_reason ?? finishReason;
          // The final counts are cumulative; cache fields may be null when unchanged.
          for (const [k, v] of Object.entries(ev.usage)) {
            if (typeof v === 'number') (usage as Record<string, number>)[k] = v;
          }
          break;
        default:
          break;
      }
    }
    // The SDK's stream ends quietly when its signal fires: an abort mid-answer is still an abort.
    if (signal?.aborted) throw abortError('anthropic', signal);
    model ||= req.model;
    if (!text.trim()) throw emptyText('anthropic', model);
    return { text, model, provider: 'anthropic', usage: usageOf(usage, elapsed(t0)), citations: req.documents ? citations : undefined, finishReason };
  }

  return {
    name: 'anthropic',
    async generate(req) {
      const t0 = now();
      const { signal, dispose } = callSignal(req);
      try {
        if (signal?.aborted) throw abortError('anthropic', signal);
        const params = anthropicParams(req, defaultMax);
        return await (req.onDelta ? stream(req, params, signal, t0) : complete(req, params, signal, t0));
      } catch (err) {
        throw mapError(err, signal);
      } finally {
        dispose();
      }
    },
  };
}
