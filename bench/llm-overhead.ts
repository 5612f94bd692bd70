/**
 * What the LLM port costs per call, over a raw `fetch` to the same local fake:
 *   raw fetch (POST JSON, read JSON)  vs  OpenAI adapter (official SDK)  vs  llmCall + adapter
 *   (and the Anthropic adapter, for comparison).
 * The fake (test/fakes/openaiFake.ts) answers at once on 127.0.0.1, so the difference is our overhead:
 * SDK request building, capability table, response checks, usage mapping, and the statechart.
 *
 *   npx tsx bench/llm-overhead.ts [calls=2000]
 *
 * Prints one JSON line, then a table. Target: p50 overhead (llmCall + adapter − raw fetch) ≤ 1 ms.
 * Overheads are medians of paired differences (each call vs the raw fetch of the same turn).
 */
import os from 'node:os';
import { SimulatedClock } from 'xstate';
import { createAnthropicProvider } from '../actors/llm/anthropic.js';
import { runLlmCall } from '../actors/llm/llmWiring.js';
import { createOpenAIProvider } from '../actors/llm/openai.js';
import type { GenerateRequest } from '../machines/llmPort.js';
import { startAnthropicFake } from '../test/fakes/anthropicFake.js';
import { startOpenAIFake } from '../test/fakes/openaiFake.js';

const CALLS = Math.max(100, Number(process.argv[2] ?? 2000));
const WARMUP = 200;

const openaiFake = await startOpenAIFake();
const anthropicFake = await startAnthropicFake();
const reply = { text: 'Bonjour, je suis le crâne.', usage: { prompt_tokens: 120, completion_tokens: 8, cached_tokens: 64 } };
openaiFake.setDefault(reply);
anthropicFake.setDefault({ text: reply.text });

const request: GenerateRequest = {
  model: 'gpt-5-mini',
  system: 'Tu es un crâne qui parle. Réponds en une phrase.',
  messages: [{ role: 'user', content: 'Bonjour, qui es-tu ?' }],
  maxTokens: 120,
  reasoningEffort: 'minimal',
  purpose: 'skull',
};

const openai = createOpenAIProvider({ apiKey: 'sk-bench', baseURL: `${openaiFake.url}/v1` });
const anthropic = createAnthropicProvider({ apiKey: 'sk-ant-bench', baseURL: anthropicFake.url });
const rawBody = JSON.stringify({
  model: request.model,
  messages: [{ role: 'system', content: request.system }, ...request.messages],
  max_completion_tokens: 120,
  reasoning_effort: 'minimal',
});
const clock = new SimulatedClock();

const variants: Record<string, () => Promise<unknown>> = {
  raw_fetch: async () => {
    const res = await fetch(`${openaiFake.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: rawBody,
    });
    const json = (await res.json()) as { choices: Array<{ message: { content: string } }> };
    return json.choices[0]?.message.content;
  },
  openai_adapter: () => openai.generate(request),
  llmcall_openai: async () => {
    const out = await runLlmCall(openai, { request, maxRetries: 3, attemptTimeoutMs: 12_000, backoffBaseMs: 200, retryAfterCapMs: 10_000 }, { clock });
    if (!out.ok) throw new Error(out.error.message);
    return out;
  },
  anthropic_adapter: () => anthropic.generate({ ...request, model: 'claude-haiku-5-5' }),
};

const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
const entries = Object.entries(variants);

for (const fn of Object.values(variants)) for (let i = 0; i < WARMUP; i++) await fn();
// Interleaved call by call: on a shared, loaded machine a slow moment hits every variant alike,
// and the paired differences (variant − raw fetch of the same turn) cancel most of it.
for (let i = 0; i < CALLS; i++) {
  for (const [name, fn] of entries) {
    const t0 = performance.now();
    await fn();
    (samples[name] as number[]).push(performance.now() - t0);
  }
  // The fakes record every request: keep memory flat.
  if (i % 500 === 499) {
    openaiFake.reset();
    anthropicFake.reset();
  }
}
await Promise.all([openaiFake.close(), anthropicFake.close()]);

const pct = (xs: number[], p: number): number => {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const stats = Object.fromEntries(
  Object.entries(samples).map(([k, xs]) => [k, { p50: r3(pct(xs, 50)), p99: r3(pct(xs, 99)), n: xs.length }]),
) as Record<string, { p50: number; p99: number; n: number }>;
const raw = samples.raw_fetch as number[];
/** Median and p99 of the paired differences with the raw fetch of the same turn. */
const overhead = (k: string): { p50: number; p99: number } => {
  const diffs = (samples[k] as number[]).map((x, i) => x - (raw[i] ?? 0));
  return { p50: r3(pct(diffs, 50)), p99: r3(pct(diffs, 99)) };
};
const summary = {
  bench: 'llm-overhead',
  node: process.version,
  calls: CALLS,
  // Other work on the machine shows up in p99: keep the load next to the figures.
  loadavg1m: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  cpus: os.cpus().length,
  ms: stats,
  overheadMs: { openai_adapter: overhead('openai_adapter'), llmcall_openai: overhead('llmcall_openai'), anthropic_adapter: overhead('anthropic_adapter') },
  targetP50Ms: 1,
  meetsTarget: overhead('llmcall_openai').p50 <= 1,
};
console.log(JSON.stringify(summary));
console.log('');
console.log('variant            | p50 ms | p99 ms | overhead p50 / p99 (paired, vs raw fetch)');
console.log('------------------ | ------ | ------ | -----------------------------------------');
for (const [k, s] of Object.entries(stats)) {
  const o = k === 'raw_fetch' ? '—' : `${overhead(k).p50} / ${overhead(k).p99} ms`;
  console.log(`${k.padEnd(18)} | ${s.p50.toFixed(3).padStart(6)} | ${s.p99.toFixed(3).padStart(6)} | ${o}`);
}
console.log(`llmCall + OpenAI adapter p50 overhead ${overhead('llmcall_openai').p50} ms (target ≤ 1 ms, ${summary.meetsTarget ? 'met' : 'NOT met'})`);
