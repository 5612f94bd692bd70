import { createDocsAssistant, type DocsCore } from '../../actors/docs/assistant.js';
import type { Surface } from '../../core/surface.js';
import { mountDocsApi } from './docsApi.js';

/**
 * The docs assistant surface: builds the assistant over CORPUS_DIR (default `docs/`), brings the
 * persisted index up to date, watches the corpus, mounts the JSON API and the pages
 * (/assistant, /docs, /admin/chat/params — transports/http/pages/mount.ts).
 */
let running: DocsCore | undefined;

/** The assistant of the running surface (undefined before start or after stop). */
export function getDocsAssistant(): DocsCore | undefined {
  return running;
}

export const docsSurface: Surface = {
  name: 'docs',
  async start(ctx, http) {
    const assistant = createDocsAssistant({ config: ctx.config, providers: ctx.providers, logger: ctx.logger, metrics: ctx.metrics, runtime: ctx.runtime });
    const report = await assistant.ready();
    ctx.logger.info({ corpus: assistant.retriever.root, ...report }, 'docs index ready');
    if (report.passages === 0) {
      ctx.logger.warn({ corpus: assistant.retriever.root }, 'the docs corpus is empty or missing: every question will be answered out of scope (set CORPUS_DIR)');
    }
    const unwatch = assistant.watch();
    running = assistant;
    if (http) {
      mountDocsApi(http.app, { assistant, logger: ctx.logger, metrics: ctx.metrics });
      const { mountDocsPages } = await import('./pages/mount.js');
      mountDocsPages({ app: http.app, db: ctx.db, config: ctx.config, logger: ctx.logger, assistant });
    }
    return {
      async stop() {
        unwatch();
        if (running === assistant) running = undefined;
      },
      health: () => ({
        corpus: assistant.retriever.root,
        documents: assistant.documents().length,
        passages: assistant.retriever.passageCount,
        hybrid: assistant.retriever.hybrid,
        provider: assistant.providerName(),
      }),
      urls: (http ? { assistant: '/assistant', docs: '/docs', search: '/api/search?q=…' } : {}) as Record<string, string>,
    };
  },
};
