/**
 * Latency the "ask" band's relevance call adds to an answer, against the OpenAI wire fake (real
 * SDK, loopback HTTP): the cost of our side of the call (request building, SDK, parsing, chart),
 * not a provider's. Add the provider's own time to first token for a real figure.
 *
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/relevance-call.ts [--n 40]
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createDocsAssistant } from '../actors/docs/assistant.js';
import { createProviders } from '../actors/llm/providers.js';
import { silentLogger } from '../core/log.js';
import { loadPalabreConfig } from '../actors/palabreConfig.js';
import { startOpenAIFake } from '../test/fakes/openaiFake.js';

const args = process.argv.slice(2);
const n = Number(args[args.indexOf('--n') + 1] ?? 40) || 40;
const corpus = resolve(process.env.CORPUS_DIR ?? '../../shared/corpus');
const questions = (JSON.parse(readFileSync('test/docs/eval/rag-qa-unseen.json', 'utf8')) as Array<{ question: string; split: string }>)
  .filter((q) => q.split === 'tune')
  .map((q) => q.question);

const fake = await startOpenAIFake();
fake.setDefault({ text: '{"answering": [1]}' });
const config = loadPalabreConfig({
  env: { CORPUS_DIR: corpus, DATA_DIR: mkdtempSync(join(tmpdir(), 'palabre-rel-')), CHAT_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-bench', OPENAI_BASE_URL: `${fake.url}/v1`, CHAT_MODEL: 'gpt-4o-mini', CHAT_SCORE_THRESHOLD: '0', CHAT_SCORE_CONFIDENT: '1', LLM_MAX_RETRIES: '0' },
  dotenvPath: null,
});
const judged: number[] = [];
const totals: number[] = [];
const a = createDocsAssistant({ config, providers: createProviders(config, { logger: silentLogger() }), persist: false, onRelevanceCall: (r) => judged.push(r.ms) });
await a.ready();
for (let i = 0; i < n; i++) {
  const t0 = performance.now();
  await a.ask({ question: questions[i % questions.length]!, settings: a.defaults() });
  totals.push(performance.now() - t0);
}
await fake.close();
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((x, y) => x - y);
  return Math.round((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0) * 100) / 100;
};
console.log(JSON.stringify({ bench: 'relevance-call', loadavg1m: +loadavg()[0]!.toFixed(1), calls: judged.length, relevanceP50ms: pct(judged, 50), relevanceP95ms: pct(judged, 95), answerP50ms: pct(totals, 50) }));
