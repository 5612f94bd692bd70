/**
 * Latency the claim check adds to an answer, against the OpenAI wire fake (real SDK, loopback
 * HTTP): our side of the call (splitting, request building, SDK, parsing, chart), not a provider's.
 * A real figure adds the provider's time for a short JSON reply (≤ 80 output tokens) on the
 * relevance model — one more round trip per generated answer.
 *
 *   npx tsx bench/claim-check.ts [--n 40]
 */
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocsAssistant } from '../actors/docs/assistant.js';
import { createProviders } from '../actors/llm/providers.js';
import { loadPalabreConfig } from '../actors/palabreConfig.js';
import { silentLogger } from '../core/log.js';
import { startOpenAIFake } from '../test/fakes/openaiFake.js';
import { makeCorpus } from '../test/docs/fixtures.js';

const args = process.argv.slice(2);
const n = Number(args[args.indexOf('--n') + 1] ?? 40) || 40;
const corpus = makeCorpus();
const fake = await startOpenAIFake();
const ANSWER = 'Le dossier médical est conservé 20 ans [1]. Il est ensuite détruit [1].';
const QUESTION = 'Quelle est la durée de conservation du dossier médical ?';

async function run(check: 'on' | 'off'): Promise<{ totals: number[]; checks: number[] }> {
  const config = loadPalabreConfig({
    env: { CORPUS_DIR: corpus, DATA_DIR: mkdtempSync(join(tmpdir(), 'palabre-claims-')), CHAT_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-bench', OPENAI_BASE_URL: `${fake.url}/v1`, CHAT_MODEL: 'gpt-4o-mini', CHAT_SCORE_THRESHOLD: '0.3', CHAT_SCORE_CONFIDENT: '0', LLM_MAX_RETRIES: '0', DOCS_LEXICONS: 'off', CHAT_CLAIM_CHECK: check },
    dotenvPath: null,
  });
  const checks: number[] = [];
  const a = createDocsAssistant({ config, providers: createProviders(config, { logger: silentLogger() }), persist: false, onClaimCheck: (r) => checks.push(r.ms) });
  await a.ready();
  const totals: number[] = [];
  for (let i = 0; i < n; i++) {
    fake.script({ text: ANSWER }, ...(check === 'on' ? [{ text: '{"supported": [1]}' }] : []));
    const t0 = performance.now();
    await a.ask({ question: QUESTION, settings: a.defaults() });
    totals.push(performance.now() - t0);
  }
  return { totals, checks };
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((x, y) => x - y);
  return Math.round((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0) * 100) / 100;
};
const off = await run('off');
const on = await run('on');
await fake.close();
console.log(JSON.stringify({ bench: 'claim-check', n, loadavg1m: +loadavg()[0]!.toFixed(1), checkP50ms: pct(on.checks, 50), checkP95ms: pct(on.checks, 95), answerOffP50ms: pct(off.totals, 50), answerOnP50ms: pct(on.totals, 50), answerOffP95ms: pct(off.totals, 95), answerOnP95ms: pct(on.totals, 95) }));
