import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics of the process, served at GET /metrics. One registry per process (tests make
 * their own) so that two servers in one test run do not share counters.
 */
export interface Metrics {
  registry: Registry;
  llmCalls: Counter<'provider' | 'model' | 'purpose' | 'outcome'>;
  llmLatency: Histogram<'provider' | 'model' | 'purpose'>;
  llmRetries: Counter<'purpose' | 'kind'>;
  llmTokens: Counter<'provider' | 'model' | 'direction'>;
  breakerState: Gauge<'breaker'>;
  actors: Gauge<'machine'>;
  inputRejected: Counter<'surface' | 'reason'>;
}

export function createMetrics(opts: { defaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaults !== false) collectDefaultMetrics({ register: registry, prefix: 'palabre_' });
  return {
    registry,
    llmCalls: new Counter({ name: 'palabre_llm_calls_total', help: 'LLM calls by outcome (ok, error, aborted)', labelNames: ['provider', 'model', 'purpose', 'outcome'], registers: [registry] }),
    llmLatency: new Histogram({
      name: 'palabre_llm_latency_seconds',
      help: 'Latency of successful LLM calls',
      labelNames: ['provider', 'model', 'purpose'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32],
      registers: [registry],
    }),
    llmRetries: new Counter({ name: 'palabre_llm_retries_total', help: 'Retries of transient LLM errors', labelNames: ['purpose', 'kind'], registers: [registry] }),
    llmTokens: new Counter({ name: 'palabre_llm_tokens_total', help: 'Tokens by direction (input, output, cached)', labelNames: ['provider', 'model', 'direction'], registers: [registry] }),
    breakerState: new Gauge({ name: 'palabre_breaker_open', help: '1 while a breaker is open (fallback model in use)', labelNames: ['breaker'], registers: [registry] }),
    actors: new Gauge({ name: 'palabre_actors', help: 'Live conversation actors per machine', labelNames: ['machine'], registers: [registry] }),
    inputRejected: new Counter({ name: 'palabre_input_rejected_total', help: 'Inputs rejected at an edge (bad payload, too large…)', labelNames: ['surface', 'reason'], registers: [registry] }),
  };
}
