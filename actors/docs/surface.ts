import { createDocsAssistant, type DocsCore } from './assistant.js';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import express from 'express';
import type { Surface } from '../../core/surfaceContract.js';
import { mountDocsApi } from '../../transports/http/docsApi.js';
import { VISITOR_MIGRATIONS } from '../../transports/http/visitorStore.js';
import { mountDocsPages } from '../../web/docs/docsMount.js';
import { GAP_MIGRATIONS, GapStore } from './gapStore.js';
import { ChatConfigStore, chatConfigMigrations } from './chatConfigStore.js';
import { docsConfig, type DocsConfig } from './docsConfig.js';
import type { LlmConfig } from '../llm/llmConfig.js';

/**
 * The docs assistant surface: builds the assistant over CORPUS_DIR (default `docs/`), brings the
 * persisted index up to date, watches the corpus, mounts the JSON API and the pages
 * (/assistant, /docs, /admin/chat/params, /admin/docs/gaps — web/docs/docsMount.ts).
 */
let running: DocsCore | undefined;

/** Docs assistant figures in /metrics (the shared Metrics type stays core's; these are ours). */
function docsMetrics(registry: Registry) {
  // A surface restarted on the same registry (tests) would otherwise fail on duplicate names.
  const names = [
    'palabre_docs_answers_total', 'palabre_docs_answer_seconds', 'palabre_docs_flagged_citations_total', 'palabre_docs_passages',
    'palabre_docs_removed_marks_total', 'palabre_docs_relevance_calls_total', 'palabre_docs_relevance_seconds', 'palabre_docs_relevance_tokens_total',
    'palabre_docs_claims_total', 'palabre_docs_claim_check_calls_total', 'palabre_docs_claim_check_seconds',
  ];
  for (const name of names) registry.removeSingleMetric(name);
  return {
    answers: new Counter({ name: 'palabre_docs_answers_total', help: 'Docs assistant answers by final state (answered, outOfScope, failed) and confidence (high, low)', labelNames: ['state', 'confidence'], registers: [registry] }),
    removedMarks: new Counter({ name: 'palabre_docs_removed_marks_total', help: 'Citation marks [n] removed from answers because they named no source', registers: [registry] }),
    relevanceCalls: new Counter({ name: 'palabre_docs_relevance_calls_total', help: 'Relevance calls between the two bounds, by verdict (some, none, invalid: failed, late or malformed)', labelNames: ['verdict'], registers: [registry] }),
    relevanceSeconds: new Histogram({ name: 'palabre_docs_relevance_seconds', help: 'Latency the relevance call adds to an answer', buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8], registers: [registry] }),
    relevanceTokens: new Counter({ name: 'palabre_docs_relevance_tokens_total', help: 'Tokens of the relevance calls (their cost), by kind (input, output)', labelNames: ['kind'], registers: [registry] }),
    claims: new Counter({ name: 'palabre_docs_claims_total', help: 'Sentences of generated answers checked against their cited passage, by verdict (supported, unsupported: removed before shown)', labelNames: ['verdict'], registers: [registry] }),
    claimChecks: new Counter({ name: 'palabre_docs_claim_check_calls_total', help: 'Claim checks by outcome (valid; invalid: failed, late or malformed, the answer shown with confidence low)', labelNames: ['outcome'], registers: [registry] }),
    claimCheckSeconds: new Histogram({ name: 'palabre_docs_claim_check_seconds', help: 'Latency the claim check adds to an answer', buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8], registers: [registry] }),
    duration: new Histogram({ name: 'palabre_docs_answer_seconds', help: 'Docs assistant answer time, model included', labelNames: ['state'], buckets: [0.005, 0.05, 0.25, 1, 2, 4, 8, 16, 32], registers: [registry] }),
    flagged: new Counter({ name: 'palabre_docs_flagged_citations_total', help: 'Citations removed because they named no retrieved passage', registers: [registry] }),
    passages: new Gauge({
      name: 'palabre_docs_passages',
      help: 'Passages in the docs index',
      registers: [registry],
      collect() {
        if (running) this.set(running.retriever.passageCount);
      },
    }),
  };
}

/** The assistant of the running surface (undefined before start or after stop). */
export function getDocsAssistant(): DocsCore | undefined {
  return running;
}

export const docsSurface: Surface<DocsConfig & LlmConfig> = {
  name: 'docs',
  machines: {
    chat: () => import('../../machines/chat.js').then((m) => m.chatMachine),
    llmCall: () => import('../../machines/llmCall.js').then((m) => m.llmCallMachine),
    breaker: () => import('../../machines/breaker.js').then((m) => m.breakerMachine),
  },
  migrations: [...VISITOR_MIGRATIONS, ...chatConfigMigrations, ...GAP_MIGRATIONS],
  config: docsConfig,
  async start(ctx) {
    const metrics = docsMetrics(ctx.metrics.registry);
    const gaps = new GapStore(ctx.store, { retentionDays: ctx.config.DOCS_GAPS_RETENTION_DAYS });
    const assistant = createDocsAssistant({
      config: ctx.config,
      providers: ctx.providers,
      logger: ctx.logger,
      metrics: ctx.metrics,
      runtime: ctx.runtime,
      onRelevanceCall: (r) => {
        metrics.relevanceCalls.inc({ verdict: r.verdict });
        metrics.relevanceSeconds.observe(r.ms / 1000);
        if (r.result) {
          metrics.relevanceTokens.inc({ kind: 'input' }, r.result.usage.inputTokens);
          metrics.relevanceTokens.inc({ kind: 'output' }, r.result.usage.outputTokens);
        }
      },
      onDroppedClaims: (question, lang, sentences) => {
        gaps.recordDropped(question, lang, sentences).catch((err: unknown) => ctx.logger.warn({ err: (err as Error).message }, 'docs: removed sentences could not be stored'));
      },
      onClaimCheck: (r) => {
        metrics.claimChecks.inc({ outcome: r.valid ? 'valid' : 'invalid' });
        metrics.claimCheckSeconds.observe(r.ms / 1000);
        if (r.supported > 0) metrics.claims.inc({ verdict: 'supported' }, r.supported);
        if (r.unsupported > 0) metrics.claims.inc({ verdict: 'unsupported' }, r.unsupported);
      },
      onAnswer: (answer, ms, question) => {
        // What the docs do not answer, for the people who write them (/admin/docs/gaps).
        const gap = answer.state === 'outOfScope' ? 'refused' : answer.state === 'answered' && answer.confidence === 'low' ? 'low' : undefined;
        if (gap) gaps.record(question, answer.lang, gap).catch((err: unknown) => ctx.logger.warn({ err: (err as Error).message }, 'docs: a coverage gap could not be stored'));
        metrics.answers.inc({ state: answer.state, confidence: answer.confidence });
        if (answer.removedMarks > 0) metrics.removedMarks.inc(answer.removedMarks);
        metrics.duration.observe({ state: answer.state }, ms / 1000);
        if (answer.flagged.length > 0) metrics.flagged.inc(answer.flagged.length);
      },
    });
    const report = await assistant.ready();
    ctx.logger.info({ corpus: assistant.retriever.root, ...report }, 'docs index ready');
    if (report.passages === 0) {
      ctx.logger.warn({ corpus: assistant.retriever.root }, 'the docs corpus is empty or missing: every question will be answered out of scope (set CORPUS_DIR)');
    }
    metrics.passages.set(assistant.retriever.passageCount);
    const unwatch = assistant.watch();
    running = assistant;
    const routes = express.Router();
    mountDocsApi(routes, { assistant, logger: ctx.logger, metrics: ctx.metrics });
    const chatConfig = new ChatConfigStore(ctx.store, ctx.logger);
    const pages = mountDocsPages({ app: routes, db: ctx.db, store: ctx.store, admin: ctx.admin, config: ctx.config, logger: ctx.logger, assistant, gaps, chatConfig });
    await pages.chatConfig.ready;
    return {
      routes,
      async stop() {
        unwatch();
        pages.chatConfig.close();
        if (running === assistant) running = undefined;
      },
      // The banner says when questions are not expanded, with the command that adds the dictionaries.
      notes: () => (assistant.expansion.startsWith('ranking without') && ctx.config.DOCS_LEXICONS !== 'off' ? [`docs assistant: ${assistant.expansion}`] : []),
      health: () => ({
        corpus: assistant.retriever.root,
        documents: assistant.documents().length,
        passages: assistant.retriever.passageCount,
        hybrid: assistant.retriever.hybrid,
        provider: assistant.providerName(),
      }),
      urls: { assistant: '/assistant', docs: '/docs', search: '/api/search?q=…' },
    };
  },
};
