/**
 * Dense vectors for hybrid retrieval. Only the OpenAI embeddings API is wired (through the official
 * SDK, so any compatible server works by base URL); tests point it at test/fakes/embeddingsFake.ts.
 */
export interface Embedder {
  readonly model: string;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export interface OpenAiEmbedderOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  /** Inputs per request. */
  batch?: number;
  /** SDK retries of 408/429/5xx/network errors (default 2). */
  maxRetries?: number;
}

export function createOpenAiEmbedder(opts: OpenAiEmbedderOptions): Embedder {
  // The SDK is loaded on the first embedding, not at start: an idle `palabre serve` without
  // hybrid retrieval never holds it, which keeps its idle RSS low.
  let sdk: Promise<import('openai').OpenAI> | undefined;
  const openai = () =>
    (sdk ??= import('openai').then(({ OpenAI }) => new OpenAI({ apiKey: opts.apiKey, ...(opts.baseURL ? { baseURL: opts.baseURL } : {}), maxRetries: opts.maxRetries ?? 2 })));
  const batch = opts.batch ?? 64;
  return {
    model: opts.model,
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      const client = await openai();
      for (let i = 0; i < texts.length; i += batch) {
        const slice = texts.slice(i, i + batch);
        const res = await client.embeddings.create({ model: opts.model, input: slice, encoding_format: 'float' }, signal ? { signal } : {});
        const sorted = [...res.data].sort((a, b) => a.index - b.index);
        for (const d of sorted) out.push(normalise(Float32Array.from(d.embedding)));
      }
      return out;
    },
  };
}

/** Unit length, so a dot product is the cosine. */
function normalise(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i] = v[i]! / n;
  return v;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const len = Math.min(a.length, b.length);
  for (let i = 0; i < len; i++) s += a[i]! * b[i]!;
  return s;
}

/** Reciprocal rank fusion (Cormack et al.): Σ 1 / (k + rank), rank from 1; k = 60 as in the paper. */
export function reciprocalRankFusion(lists: string[][], k = 60): Array<{ id: string; rrf: number }> {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1)));
  }
  return [...scores].map(([id, rrf]) => ({ id, rrf })).sort((a, b) => b.rrf - a.rrf);
}

export function vectorToBase64(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

export function vectorFromBase64(s: string): Float32Array {
  const buf = Buffer.from(s, 'base64');
  const copy = new Uint8Array(buf.byteLength);
  copy.set(buf);
  return new Float32Array(copy.buffer);
}

export interface GeminiEmbedderOptions {
  apiKey: string;
  baseUrl?: string;
  model: string;
  batch?: number;
}

/** Gemini Developer API embeddings (`models/{model}:batchEmbedContents`) through @google/genai. */
export function createGeminiEmbedder(opts: GeminiEmbedderOptions): Embedder {
  // The SDK is loaded on first use only: it is heavy and most setups never embed with Gemini.
  let client: Promise<import('@google/genai').GoogleGenAI> | undefined;
  const ai = () =>
    (client ??= import('@google/genai').then(
      ({ GoogleGenAI }) => new GoogleGenAI({ apiKey: opts.apiKey, apiVersion: 'v1beta', ...(opts.baseUrl ? { httpOptions: { baseUrl: opts.baseUrl } } : {}) }),
    ));
  const batch = opts.batch ?? 64;
  return {
    model: opts.model,
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      const sdk = await ai();
      for (let i = 0; i < texts.length; i += batch) {
        const slice = texts.slice(i, i + batch);
        const res = await sdk.models.embedContent({ model: opts.model, contents: slice, config: signal ? { abortSignal: signal } : {} });
        const vectors = res.embeddings ?? [];
        if (vectors.length !== slice.length) throw new Error(`gemini embeddings: ${vectors.length} vectors for ${slice.length} inputs`);
        for (const e of vectors) out.push(normalise(Float32Array.from(e.values ?? [])));
      }
      return out;
    },
  };
}
