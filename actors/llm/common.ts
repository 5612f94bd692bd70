/**
 * Small pieces every adapter needs: the request's effective signal (caller signal + optional
 * deadline), a clock, and grounded answers for APIs without native citations (sources numbered in
 * the prompt, `[n]` markers read back as citations).
 */
import type { Citation, GenerateRequest, SourceDocument } from '../../machines/llmPort.js';

export interface CallSignal {
  signal: AbortSignal | undefined;
  dispose(): void;
}

/** Combines the caller's signal with `timeoutMs` (an abort whose reason is a TimeoutError). */
export function callSignal(req: GenerateRequest): CallSignal {
  if (req.timeoutMs === undefined || req.timeoutMs <= 0) return { signal: req.signal, dispose: () => undefined };
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  return { signal, dispose: () => undefined };
}

export const now = (): number => performance.now();

/** Rounded to 0.1 ms: enough for latency histograms, stable in logs. */
export const elapsed = (t0: number): number => Math.round((performance.now() - t0) * 10) / 10;

/** Rough token estimate (≈ 4 characters per token) for the offline provider. */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

/**
 * Sources for an API without native citations: numbered passages placed before the question, and
 * an instruction to cite with `[n]`. Kept out of the system block so the stable prefix stays cacheable.
 */
function sourcesPrompt(docs: SourceDocument[]): string {
  const blocks = docs.map((d, i) => `[${i + 1}] ${d.title} (${d.source})\n${d.text}`);
  return `Sources:\n\n${blocks.join('\n\n')}\n\nCite the sources you use as [n].`;
}

/** Message contents with the sources prepended to the last user message. */
export function withSources(req: GenerateRequest): GenerateRequest['messages'] {
  const docs = req.documents ?? [];
  if (docs.length === 0) return req.messages;
  const messages = req.messages.slice();
  let idx = -1;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'user') { idx = i; break; }
  if (idx === -1) return [...messages, { role: 'user', content: sourcesPrompt(docs) }];
  const last = messages[idx];
  if (last) messages[idx] = { role: 'user', content: `${sourcesPrompt(docs)}\n\n${last.content}` };
  return messages;
}

/** `[n]` markers in an answer → citations of the n-th document (1-based), each once, in order. */
export function citationsFromMarkers(text: string, docs: SourceDocument[] | undefined): Citation[] | undefined {
  if (!docs || docs.length === 0) return undefined;
  const seen = new Set<string>();
  const out: Citation[] = [];
  for (const m of text.matchAll(/\[(\d{1,3})\]/g)) {
    const doc = docs[Number(m[1]) - 1];
    if (doc && !seen.has(doc.id)) {
      seen.add(doc.id);
      out.push({ sourceId: doc.id });
    }
  }
  return out;
}
