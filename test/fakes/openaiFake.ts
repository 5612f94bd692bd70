/**
 * Wire-level fake of OpenAI Chat Completions (`POST …/chat/completions`, JSON and SSE streaming).
 *
 * Usage:
 *   const fake = await startOpenAIFake();            // http://127.0.0.1:<port>, any path ending in /chat/completions
 *   const client = new OpenAI({ apiKey: 'test', baseURL: `${fake.url}/v1`, maxRetries: 0 });
 *   fake.script({ text: 'Bonjour', usage: { prompt_tokens: 12, completion_tokens: 3, cached_tokens: 8 } });
 *   fake.script({ status: 429, headers: { 'retry-after': '1' } }, { text: 'ok' });   // queued, FIFO
 *   fake.script({ raw: '{"choices": [' });           // malformed JSON
 *   fake.script({ drop: true });                      // socket destroyed before any byte
 *   fake.script({ delayMs: 5000 });                   // slow: abort it, then `await fake.requests[0].done`
 *   fake.requests[0].body                             // parsed JSON the SDK sent (model, max_completion_tokens…)
 *   await fake.close();
 * A request with `stream: true` is answered as SSE (deltas, then a usage chunk when
 * `stream_options.include_usage` is set, then `data: [DONE]`). Unscripted requests get the default
 * reply (`setDefault`), initially `{ text: 'ok' }`. The `model` answered defaults to the one asked.
 * Like the real API, GPT-5 / o-series requests carrying `max_tokens`, `temperature` ≠ 1 or `top_p`
 * get a 400 (without consuming a scripted reply); `startOpenAIFake({ strict: false })` accepts anything.
 * `fake.setModels([{ id: 'gpt-5-mini', shutdownDate: '2026-12-11' }])` serves `GET …/models` (with
 * `shutdown_date` as the real list gives it); `fake.setModels({ status: 500 })` makes it fail.
 */
import { SSE_HEADERS, splitDeltas, sse, startWireFake, type CommonReply, type FakeOptions, type Protocol, type RecordedRequest, type WireFake } from './base.js';

export interface OpenAIReply {
  text?: string;
  /** The model reported in the response; default: the `model` of the request. */
  model?: string;
  finishReason?: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number; reasoning_tokens?: number };
}

export type OpenAIFake = WireFake<OpenAIReply>;

function askedModel(req: RecordedRequest): string {
  const body = req.body as { model?: unknown } | undefined;
  return typeof body?.model === 'string' ? body.model : 'unknown-model';
}

function usageOf(reply: OpenAIReply): Record<string, unknown> {
  const u = reply.usage ?? {};
  const prompt = u.prompt_tokens ?? 10;
  const completion = u.completion_tokens ?? 5;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: u.cached_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

let seq = 0;

/** Reasoning models as the real API treats them (gpt-5*-chat variants are not reasoning models). */
const REASONING_MODEL = /^(?:gpt-[56](?!(?:\.\d+)?-chat)|o\d)/;

/** The 400s the real API gives reasoning models (verified facts, DESIGN.md "Providers"). */
function validate(req: RecordedRequest): string | undefined {
  const body = req.body as Record<string, unknown> | undefined;
  if (!body || typeof body.model !== 'string') return "you must provide a model parameter";
  if (!Array.isArray(body.messages)) return "'messages' is a required property";
  if (!REASONING_MODEL.test(body.model)) return undefined;
  if (body.max_tokens !== undefined) return "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
  if (body.temperature !== undefined && body.temperature !== 1) return "Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is supported.";
  if (body.top_p !== undefined) return "Unsupported parameter: 'top_p' is not supported with this model.";
  return undefined;
}

const protocol: Protocol<OpenAIReply> = {
  name: 'OpenAI',
  matches: (method, path) => method === 'POST' && path.endsWith('/chat/completions'),
  catalog: {
    matches: (method, path) => method === 'GET' && path.endsWith('/models'),
    render: (models) => ({
      object: 'list',
      data: models.map((m) => ({ id: m.id, object: 'model', created: 1_750_000_000, owned_by: 'system', ...(m.shutdownDate ? { shutdown_date: m.shutdownDate } : {}) })),
    }),
  },
  validate,
  errorBody: (status, message) => ({
    error: {
      message,
      type: status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error',
      param: null,
      code: status === 429 ? 'rate_limit_exceeded' : null,
    },
  }),
  render(reply: OpenAIReply & CommonReply, req: RecordedRequest) {
    const model = reply.model ?? askedModel(req);
    const id = `chatcmpl-fake${++seq}`;
    const created = Math.floor(Date.now() / 1000);
    const text = reply.text ?? '';
    const finish = reply.finishReason ?? 'stop';
    const body = req.body as { stream?: unknown; stream_options?: { include_usage?: unknown } } | undefined;
    const headers = { 'x-request-id': `req_fake${seq}`, ...reply.headers };
    if (body?.stream === true) {
      const base = { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake' };
      const chunks = [sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })];
      for (const delta of text ? splitDeltas(text) : []) {
        chunks.push(sse({ ...base, choices: [{ index: 0, delta: { content: delta }, finish_reason: null }] }));
      }
      chunks.push(sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] }));
      if (body.stream_options?.include_usage === true) chunks.push(sse({ ...base, choices: [], usage: usageOf(reply) }));
      chunks.push(sse('[DONE]'));
      return { status: reply.status ?? 200, headers: { ...SSE_HEADERS, ...headers }, chunks };
    }
    const json = {
      id,
      object: 'chat.completion',
      created,
      model,
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: finish }],
      usage: usageOf(reply),
    };
    return { status: reply.status ?? 200, headers: { 'content-type': 'application/json', ...headers }, chunks: [JSON.stringify(json)] };
  },
};

export function startOpenAIFake(opts: FakeOptions<OpenAIReply> = {}): Promise<OpenAIFake> {
  return startWireFake(protocol, opts.defaultReply ?? { text: 'ok' }, opts.strict ?? true);
}
