import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatAnswer, ChatSettings, DocsAssistant, Passage } from '../../../actors/docs/contract.js';
import { Retriever } from '../../../actors/retrieval/retriever.js';

/**
 * STOPGAP used only until the core's DocsAssistant lands: the real Retriever over a real corpus,
 * an extractive answer streamed in two deltas, and the guard (no passage above the threshold →
 * out of scope). Replaced by the core's implementation in test/web/support/server.ts.
 */
export async function stopgapAssistant(root: string): Promise<DocsAssistant & { guardCalls: number }> {
  const retriever = new Retriever({ root });
  await retriever.sync();
  const defaults: ChatSettings = { model: 'offline-extractive', k: 4, threshold: 0.3, temperature: 0.2, maxTokens: 800, historyTurns: 4 };
  const state = { guardCalls: 0 };
  const assistant: DocsAssistant & { guardCalls: number } = {
    get guardCalls() {
      return state.guardCalls;
    },
    search: (q, k): Passage[] => retriever.search(q, k),
    defaults: () => defaults,
    providerName: () => 'offline',
    documents: () => retriever.documents().map((d) => ({ path: d.path, title: d.title, headings: d.headings.map((h) => ({ depth: h.depth, text: h.text, anchor: h.anchor })) })),
    readDocument: (path) => {
      const d = retriever.document(path);
      if (!d) return undefined;
      return { path: d.path, title: d.title, markdown: readFileSync(join(root, d.path), 'utf8') };
    },
    async ask({ question, settings, onDelta }): Promise<ChatAnswer> {
      const hits = retriever.search(question, settings.k).filter((p) => p.score >= settings.threshold);
      state.guardCalls++;
      if (!hits.length) {
        return { state: 'outOfScope', answer: 'Cette information n’est pas dans la documentation.', outOfScope: true, sources: [], flagged: [], provider: 'offline', model: settings.model };
      }
      const top = hits.slice(0, 2);
      const answer = top.map((p) => p.text.split(/(?<=[.!?])\s/)[0] ?? p.text).join(' ');
      onDelta?.(answer.slice(0, 20));
      onDelta?.(answer.slice(20));
      return {
        state: 'answered', answer, outOfScope: false, flagged: [], provider: 'offline', model: settings.model,
        sources: top.map((p) => ({ path: p.path, section: p.section, anchor: p.anchor, href: `/docs/${p.path}#${p.anchor}` })),
      };
    },
  };
  return assistant;
}
