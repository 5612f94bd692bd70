/**
 * The offline provider: deterministic, no network, honest. Used when no API key is configured.
 *
 * Each surface registers the responder for its `purpose` (Skull persona script, T2 fact sheet,
 * extractive docs answers…) with `registerOfflineResponder`; a request whose purpose has no
 * responder gets the default one, which says plainly that no language model was called. The same
 * request always gets the same text, citations and token counts.
 */
import { elapsed, estimateTokens, now } from './common.js';
import { abortError } from './llmErrors.js';
import { LlmError, type Citation, type GenerateRequest, type GenerateResult, type LlmProvider } from '../../machines/llmPort.js';

export interface OfflineAnswer {
  text: string;
  citations?: Citation[];
}

/** Must be a pure function of the request (no clock, no randomness): determinism is the contract. */
export type OfflineResponder = (req: GenerateRequest) => string | OfflineAnswer | Promise<string | OfflineAnswer>;

/** The model name reported by the offline provider. */
const OFFLINE_MODEL = 'offline';

const responders = new Map<string, OfflineResponder>();

/** Registers (or replaces) the responder for a purpose; returns a function that removes it. */
export function registerOfflineResponder(purpose: string, fn: OfflineResponder): () => void {
  responders.set(purpose, fn);
  return () => {
    if (responders.get(purpose) === fn) responders.delete(purpose);
  };
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const m = /^(.{20,300}?[.!?])(?:\s|$)/.exec(flat);
  return m?.[1] ?? flat.slice(0, 300);
}

/**
 * Default: with documents, quote the first passage (extractive and cited); without, say what this is.
 * French, as the product's users are.
 */
const defaultOfflineResponder: OfflineResponder = (req) => {
  const doc = req.documents?.[0];
  if (doc) {
    return {
      text: `Mode hors ligne (aucun modèle de langage appelé). Extrait de « ${doc.title} » : ${firstSentence(doc.text)}`,
      citations: [{ sourceId: doc.id, citedText: firstSentence(doc.text) }],
    };
  }
  return {
    text:
      'Mode hors ligne : aucune clé d’API n’est configurée, donc aucun modèle de langage n’a été appelé. ' +
      'Cette réponse vient du fournisseur « offline » de palabre.',
  };
};

function wordDeltas(text: string): string[] {
  return text.split(/(?<=\s)/);
}

export function createOfflineProvider(): LlmProvider {
  return {
    name: 'offline',
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      const t0 = now();
      if (req.signal?.aborted) throw abortError('offline', req.signal);
      const responder = (req.purpose !== undefined ? responders.get(req.purpose) : undefined) ?? defaultOfflineResponder;
      let answer: OfflineAnswer;
      try {
        const out = await responder(req);
        answer = typeof out === 'string' ? { text: out } : out;
      } catch (err) {
        throw new LlmError('bad_request', `offline responder for ${req.purpose ?? 'default'} failed: ${err instanceof Error ? err.message : String(err)}`, { provider: 'offline', cause: err });
      }
      if (req.signal?.aborted) throw abortError('offline', req.signal);
      if (!answer.text.trim()) throw new LlmError('empty', 'offline responder returned no text', { provider: 'offline' });
      if (req.onDelta) for (const d of wordDeltas(answer.text)) req.onDelta(d);
      const prompt = [req.system ?? '', ...req.messages.map((m) => m.content), ...(req.documents ?? []).map((d) => d.text)].join('\n');
      return {
        text: answer.text,
        model: OFFLINE_MODEL,
        provider: 'offline',
        usage: { inputTokens: estimateTokens(prompt), outputTokens: estimateTokens(answer.text), cachedTokens: 0, cacheCreationTokens: 0, latencyMs: elapsed(t0) },
        citations: answer.citations ?? (req.documents ? [] : undefined),
        finishReason: 'stop',
      };
    },
  };
}
