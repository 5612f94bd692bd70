/**
 * Wire-level fake of the Anthropic Messages API (`POST /v1/messages`, JSON and SSE streaming).
 *
 * Usage:
 *   const fake = await startAnthropicFake();
 *   const client = new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 });  // SDK adds /v1/messages
 *   fake.script({ text: 'Bonjour', usage: { input_tokens: 20, output_tokens: 4, cache_read_input_tokens: 1800 } });
 *   fake.script({ blocks: [                              // text blocks, some with search_result citations
 *     { text: 'Selon la doc, ' },
 *     { text: 'les données sont gardées 3 ans.', citations: [{ searchResultIndex: 0, citedText: '3 ans' }] },
 *   ] });
 *   fake.script({ status: 429, headers: { 'retry-after': '2' } }, { status: 529 }, { raw: '{"content":' }, { drop: 'mid-body' });
 *   fake.requests[0].body                                 // parsed JSON: system blocks with cache_control, messages…
 *   await fake.close();
 * A request with `stream: true` is answered with the real event sequence (message_start,
 * content_block_start/delta/stop incl. citations_delta, message_delta with usage, message_stop).
 * Default reply: `{ text: 'ok' }`; the model answered defaults to the one asked.
 * Like API version 2026-10-21 (the SDK's default), a request with temperature/top_p/top_k or without
 * max_tokens gets a 400 without consuming a scripted reply; `{ strict: false }` accepts anything.
 */
import { SSE_HEADERS, splitDeltas, sse, startWireFake, type CommonReply, type FakeOptions, type Protocol, type RecordedRequest, type WireFake } from './base.js';

interface AnthropicCitationReply {
  /** Index of the cited `search_result` block among those of the request. */
  searchResultIndex: number;
  citedText?: string;
  startBlockIndex?: number;
  endBlockIndex?: number;
}

export interface AnthropicReply {
  /** Shorthand for one uncited text block. */
  text?: string;
  blocks?: Array<{ text: string; citations?: AnthropicCitationReply[] }>;
  model?: string;
  stopReason?: string;
  usage?: { input_tokens?: number; output_tokens?: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };
}

export type AnthropicFake = WireFake<AnthropicReply>;

interface SearchResultSent { source?: unknown; title?: unknown; content?: Array<{ text?: unknown }> }

/** The search_result blocks of the request, in order, as the API indexes them. */
function searchResults(req: RecordedRequest): SearchResultSent[] {
  const body = req.body as { messages?: Array<{ content?: unknown }> } | undefined;
  const out: SearchResultSent[] = [];
  for (const m of body?.messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const block of m.content as Array<{ type?: unknown }>) {
      if (block.type === 'search_result') out.push(block as SearchResultSent);
    }
  }
  return out;
}

function citationJson(c: AnthropicCitationReply, req: RecordedRequest): Record<string, unknown> {
  const sr = searchResults(req)[c.searchResultIndex];
  const start = c.startBlockIndex ?? 0;
  const end = c.endBlockIndex ?? start + 1;
  const cited = c.citedText ?? (sr?.content ?? []).slice(start, end).map((b) => String(b.text ?? '')).join('');
  return {
    type: 'search_result_location',
    cited_text: cited,
    search_result_index: c.searchResultIndex,
    source: typeof sr?.source === 'string' ? sr.source : 'unknown',
    title: typeof sr?.title === 'string' ? sr.title : null,
    start_block_index: start,
    end_block_index: end,
  };
}

function usageOf(reply: AnthropicReply, phase: 'start' | 'final'): Record<string, unknown> {
  const u = reply.usage ?? {};
  return {
    input_tokens: u.input_tokens ?? 10,
    output_tokens: phase === 'start' ? 1 : (u.output_tokens ?? 5),
    cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
    cache_creation: null,
    server_tool_use: null,
    service_tier: 'standard',
  };
}

let seq = 0;

/** The 400s of API version 2026-10-21, which the SDK (≥ 1.0) sends by default. */
function validate(req: RecordedRequest): string | undefined {
  const body = req.body as Record<string, unknown> | undefined;
  if (!body || typeof body.model !== 'string') return 'model: Field required';
  if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  if (!Array.isArray(body.messages)) return 'messages: Field required';
  if (req.headers['anthropic-version'] !== '2026-10-21') return undefined;
  for (const k of ['temperature', 'top_p', 'top_k']) {
    if (body[k] !== undefined) return `${k}: Extra inputs are not permitted`;
  }
  return undefined;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const protocol: Protocol<AnthropicReply> = {
  name: 'Anthropic',
  matches: (method, path) => method === 'POST' && path.endsWith('/v1/messages'),
  // GET /v1/models as the SDK's ModelInfo: lifecycle and retires_at carry the retirement schedule.
  catalog: {
    matches: (method, path) => method === 'GET' && path.endsWith('/v1/models'),
    render: (models) => ({
      data: models.map((m) => ({
        type: 'model',
        id: m.id,
        display_name: m.id,
        created_at: '2026-01-01T00:00:00Z',
        lifecycle: m.lifecycle ?? 'active',
        deprecated_at: m.lifecycle && m.lifecycle !== 'active' ? '2026-06-01T00:00:00Z' : null,
        retires_at: m.retiresAt ?? null,
        capabilities: null,
        line: null,
        max_input_tokens: null,
        max_tokens: null,
      })),
      has_more: false,
      first_id: models[0]?.id ?? null,
      last_id: models.at(-1)?.id ?? null,
    }),
  },
  validate,
  errorBody: (status, message) => ({ type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } }),
  render(reply: AnthropicReply & CommonReply, req: RecordedRequest) {
    const body = req.body as { model?: unknown; stream?: unknown } | undefined;
    const model = reply.model ?? (typeof body?.model === 'string' ? body.model : 'unknown-model');
    const id = `msg_fake${++seq}`;
    const blocks = reply.blocks ?? [{ text: reply.text ?? '' }];
    const stopReason = reply.stopReason ?? 'end_turn';
    const headers = { 'request-id': `req_fake${seq}`, ...reply.headers };
    const content = blocks.map((b) => ({
      type: 'text',
      text: b.text,
      citations: b.citations ? b.citations.map((c) => citationJson(c, req)) : null,
    }));
    if (body?.stream === true) {
      const message = { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: usageOf(reply, 'start') };
      const chunks = [sse({ type: 'message_start', message }, 'message_start')];
      content.forEach((block, index) => {
        chunks.push(sse({ type: 'content_block_start', index, content_block: { type: 'text', text: '', ...(block.citations ? { citations: [] } : {}) } }, 'content_block_start'));
        for (const c of block.citations ?? []) {
          chunks.push(sse({ type: 'content_block_delta', index, delta: { type: 'citations_delta', citation: c } }, 'content_block_delta'));
        }
        for (const delta of block.text ? splitDeltas(block.text) : []) {
          chunks.push(sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: delta } }, 'content_block_delta'));
        }
        chunks.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
      });
      const final = usageOf(reply, 'final');
      chunks.push(sse({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: final }, 'message_delta'));
      chunks.push(sse({ type: 'message_stop' }, 'message_stop'));
      return { status: reply.status ?? 200, headers: { ...SSE_HEADERS, ...headers }, chunks };
    }
    const json = { id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage: usageOf(reply, 'final') };
    return { status: reply.status ?? 200, headers: { 'content-type': 'application/json', ...headers }, chunks: [JSON.stringify(json)] };
  },
};

export function startAnthropicFake(opts: FakeOptions<AnthropicReply> = {}): Promise<AnthropicFake> {
  return startWireFake(protocol, opts.defaultReply ?? { text: 'ok' }, opts.strict ?? true);
}
