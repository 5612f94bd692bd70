/**
 * Wire-level fake of Gemini text generation: `POST …/models/{model}:generateContent` (JSON) and
 * `…:streamGenerateContent?alt=sse` (SSE), for the Developer API (`/v1beta/models/…`) and Vertex
 * (`/v1beta1/projects/…/publishers/google/models/…`). The Live API fake is test/fakes/geminiLive.ts.
 *
 * Usage:
 *   const fake = await startGeminiFake();
 *   const ai = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: fake.url, apiVersion: 'v1beta' } });
 *   fake.script({ text: 'Bonjour', usage: { promptTokenCount: 30, candidatesTokenCount: 4, cachedContentTokenCount: 20 } });
 *   fake.script({ status: 429, headers: { 'retry-after': '3' } }, { status: 503 }, { raw: '{"candidates":' }, { drop: true });
 *   fake.requests[0].body           // {contents, systemInstruction, generationConfig}
 *   fake.requests[0].path           // '/v1beta/models/gemini-2.5-flash:generateContent'
 *   await fake.close();
 * Default reply: `{ text: 'ok' }`; `modelVersion` defaults to the model of the path.
 */
import { startWireFake, type CommonReply, type FakeOptions, type Protocol, type RecordedRequest, type WireFake } from './base.js';

export interface GeminiReply {
  text?: string;
  /** `modelVersion` of the response; default: the model named in the path. */
  model?: string;
  finishReason?: string;
  usage?: { promptTokenCount?: number; candidatesTokenCount?: number; cachedContentTokenCount?: number; thoughtsTokenCount?: number };
}

export type GeminiFake = WireFake<GeminiReply>;

const ROUTE = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

let seq = 0;

function chunkJson(reply: GeminiReply, model: string, text: string, last: boolean): Record<string, unknown> {
  const u = reply.usage ?? {};
  const prompt = u.promptTokenCount ?? 10;
  const out = u.candidatesTokenCount ?? 5;
  return {
    candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0, ...(last ? { finishReason: reply.finishReason ?? 'STOP' } : {}) }],
    usageMetadata: {
      promptTokenCount: prompt,
      candidatesTokenCount: out,
      totalTokenCount: prompt + out + (u.thoughtsTokenCount ?? 0),
      ...(u.cachedContentTokenCount !== undefined ? { cachedContentTokenCount: u.cachedContentTokenCount } : {}),
      ...(u.thoughtsTokenCount !== undefined ? { thoughtsTokenCount: u.thoughtsTokenCount } : {}),
    },
    modelVersion: model,
    responseId: `resp_fake${seq}`,
  };
}

const protocol: Protocol<GeminiReply> = {
  name: 'Gemini',
  matches: (method, path) => method === 'POST' && ROUTE.test(path),
  catalog: {
    matches: (method, path) => method === 'GET' && /\/v1(?:beta|alpha)?\/models$/.test(path),
    render: (models) => ({
      models: models.map((m) => ({ name: `models/${m.id}`, displayName: m.id, supportedGenerationMethods: ['generateContent', 'bidiGenerateContent'] })),
    }),
  },
  errorBody: (status, message) => ({ error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN' } }),
  render(reply: GeminiReply & CommonReply, req: RecordedRequest) {
    const m = ROUTE.exec(req.path);
    const model = reply.model ?? m?.[1] ?? 'unknown-model';
    seq++;
    const text = reply.text ?? '';
    if (m?.[2] === 'streamGenerateContent') {
      const parts = text ? text.split(/(?<=\s)/) : [''];
      const chunks = parts.map((p, i) => `data: ${JSON.stringify(chunkJson(reply, model, p, i === parts.length - 1))}\r\n\r\n`);
      return { status: reply.status ?? 200, headers: { 'content-type': 'text/event-stream', ...reply.headers }, chunks };
    }
    return {
      status: reply.status ?? 200,
      headers: { 'content-type': 'application/json; charset=UTF-8', ...reply.headers },
      chunks: [JSON.stringify(chunkJson(reply, model, text, true))],
    };
  },
};

export function startGeminiFake(opts: FakeOptions<GeminiReply> = {}): Promise<GeminiFake> {
  return startWireFake(protocol, opts.defaultReply ?? { text: 'ok' }, opts.strict ?? true);
}
