/**
 * A chat turn's overhead excluding the model: retrieve → guard → (zero-latency provider) →
 * citation check → answer, through the real chat machine and actor runtime, on the shared corpus.
 * Also the out-of-scope path (no model call at all).
 *   npx tsx bench/retrieval-chat.ts
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { createDocsAssistant } from '../actors/docs/assistant.js';
import { loadPalabreConfig } from '../actors/palabreConfig.js';
import { Runtime } from '../core/runtime.js';
import type { LlmProvider } from '../machines/llmPort.js';

const instant: LlmProvider = {
  name: 'anthropic',
  async generate(req) {
    const first = req.documents?.[0];
    return {
      text: 'Réponse [1].',
      model: req.model,
      provider: 'anthropic',
      citations: first ? [{ sourceId: first.id }] : [],
      usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 0 },
    };
  },
};

const config = loadPalabreConfig({ env: { CORPUS_DIR: resolve(process.env.CORPUS_DIR ?? '../shared/corpus'), LLM_MAX_RETRIES: '0' }, dotenvPath: null });
const runtime = new Runtime();
const assistant = createDocsAssistant({ config, providers: { get: () => instant, resolve: () => instant, available: () => ['anthropic'] }, persist: false, runtime });
await assistant.ready();

async function measure(question: string, rounds: number): Promise<{ p50: number; p99: number; state: string }> {
  let state = '';
  for (let i = 0; i < 20; i++) state = (await assistant.ask({ question, settings: assistant.defaults() })).state;
  const s: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await assistant.ask({ question, settings: assistant.defaults() });
    s.push(performance.now() - t0);
  }
  s.sort((a, b) => a - b);
  return { p50: +s[Math.floor(s.length / 2)]!.toFixed(3), p99: +s[Math.floor(s.length * 0.99)]!.toFixed(3), state };
}

const answered = await measure('Combien de temps faut-il conserver les données d’un dossier médical ?', 500);
const refused = await measure('Comment réussir une mayonnaise maison ?', 500);
const rows = [
  { path: 'answered (model stubbed at 0 ms)', ...answered },
  { path: 'out of scope (no model call)', ...refused },
];
console.log(JSON.stringify({ loadavg1m: +loadavg()[0]!.toFixed(1), bench: 'chat-turn-overhead', rows }));
console.table(rows);
runtime.shutdown();
