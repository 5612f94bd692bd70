/**
 * Wire-level fake of OpenAI `POST /v1/embeddings` and of Gemini
 * `POST /v1beta/models/{model}:batchEmbedContents`, for hybrid retrieval tests. The real `openai`
 * SDK (baseURL = `url`) and `@google/genai` (httpOptions.baseUrl = `origin`) are pointed at it. Vectors are deterministic: a hashed bag of the input's words
 * (64 dimensions), so texts sharing words are close and the same text always gets the same vector.
 * `synonyms` maps a word to another before hashing, which lets a test make two different words
 * "mean" the same thing, as a real embedding model would.
 *
 *   const fake = await startEmbeddingsFake({ synonyms: { abandonnee: 'cancelled' } });
 *   new OpenAI({ apiKey: 'test', baseURL: fake.url });   // url ends with /v1
 *   fake.requests  // [{ model, input: string[] }]
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

const FAKE_DIMENSIONS = 64;

export interface EmbeddingsFake {
  /** OpenAI base URL (ends with /v1). */
  url: string;
  /** Origin, for the Gemini SDK's baseUrl. */
  origin: string;
  requests: Array<{ model: string; input: string[] }>;
  close(): Promise<void>;
}

function words(text: string): string[] {
  return text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

function hash(word: string): number {
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return h >>> 0;
}

function fakeVector(text: string, synonyms: Record<string, string> = {}): number[] {
  const v = new Array<number>(FAKE_DIMENSIONS).fill(0);
  for (const w of words(text)) {
    if (w.length < 3) continue;
    const h = hash(synonyms[w] ?? w);
    v[h % FAKE_DIMENSIONS]! += (h & 1) === 0 ? 1 : -1;
  }
  return v;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startEmbeddingsFake(opts: { synonyms?: Record<string, string> } = {}): Promise<EmbeddingsFake> {
  const requests: EmbeddingsFake['requests'] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const gemini = /^\/v1beta\/models\/([^/:]+):batchEmbedContents/.exec(req.url ?? '');
      if (req.method === 'POST' && gemini) {
        const parsed = JSON.parse(await body(req)) as { requests: Array<{ content: { parts: Array<{ text: string }> } }> };
        const input = parsed.requests.map((r) => r.content.parts.map((p) => p.text).join(''));
        requests.push({ model: decodeURIComponent(gemini[1]!), input });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ embeddings: input.map((text) => ({ values: fakeVector(text, opts.synonyms) })) }));
        return;
      }
      if (req.method !== 'POST' || !req.url?.endsWith('/embeddings')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      const parsed = JSON.parse(await body(req)) as { model: string; input: string | string[] };
      const input = Array.isArray(parsed.input) ? parsed.input : [parsed.input];
      requests.push({ model: parsed.model, input });
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: fakeVector(text, opts.synonyms) }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: parsed.model, usage: { prompt_tokens: input.length, total_tokens: input.length } }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
