import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import type { DocsAssistant } from '../../../machines/chatContract.js';
import { silentLogger } from '../../../core/log.js';
import { openStore, type Db } from '../../../core/store/db.js';
import { mountDocsPages, type DocsPages } from '../../../web/docs/docsMount.js';
import { ChatConfigStore } from '../../../actors/docs/chatConfigStore.js';
import { createDocsAssistant, type DocsCore } from '../../../actors/docs/assistant.js';
import { createProviders } from '../../../actors/llm/providers.js';
import { loadPalabreConfig } from '../../../actors/palabreConfig.js';
import { errorPage, notFoundPage } from '../../../web/errorPage.js';
import { GapStore } from '../../../actors/docs/gapStore.js';
import { sqliteAppStore } from '../../../core/store/appStore.js';
import { createAdminAuth } from '../../../core/admin/adminAuth.js';
import { sendAdminLoginPage } from '../../../web/admin/loginPage.js';
import { sendErrorPage } from '../../../web/errorPage.js';
import { PORTABLE_MIGRATIONS } from '../../support/migrations.js';

export const FIXTURE_CORPUS = fileURLToPath(new URL('../fixtures/corpus', import.meta.url));
export const ADMIN_PASSWORD = 'correct horse battery';

export interface PagesServer {
  url: string;
  db: Db;
  assistant: DocsAssistant;
  /** The core's assistant over the corpus (offline provider: no key, no network). */
  pages: DocsPages;
  close(): Promise<void>;
}

/** The real DocsAssistant (actors/docs/assistant.ts) with the offline provider, index in memory. */
export async function realAssistant(corpus: string, dataDir: string): Promise<DocsCore> {
  const config = loadPalabreConfig({ env: { CORPUS_DIR: corpus, DATA_DIR: dataDir, CHAT_PROVIDER: 'offline', LOG_LEVEL: 'silent' }, dotenvPath: null });
  const assistant = createDocsAssistant({ config, providers: createProviders(config, { logger: silentLogger() }), persist: false });
  await assistant.ready();
  return assistant;
}

/** The docs pages on a real socket (127.0.0.1, port 0) with a real SQLite file in a temp dir. */
export async function startPagesServer(opts: { corpus?: string; adminPassword?: string | null; assistant?: DocsAssistant; trustProxy?: boolean | number } = {}): Promise<PagesServer> {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-web-'));
  const db = openStore({ path: join(dir, 'palabre.db') });
  const assistant = opts.assistant ?? (await realAssistant(opts.corpus ?? FIXTURE_CORPUS, dir));
  const app = express();
  if (opts.trustProxy !== undefined) app.set('trust proxy', opts.trustProxy);
  const password = opts.adminPassword === null ? undefined : (opts.adminPassword ?? ADMIN_PASSWORD);
  // Two questions the docs did not answer, one with markup in it: /admin/docs/gaps has rows to show (and escape).
  const store = sqliteAppStore(db, PORTABLE_MIGRATIONS);
  const gaps = new GapStore(store, { retentionDays: 30 });
  await gaps.record('Quelle est la recette de la <b>tarte</b> tatin ?', 'fr', 'refused');
  await gaps.record('Quelle version de l’outil sera exigée ?', 'fr', 'low');
  const config = { ADMIN_PASSWORD: password, SESSION_SECRET: 'test-session-secret-0123456789' };
  // The admin service core builds once per process, with the site's login and error pages.
  const admin = createAdminAuth({ db, store, config, logger: silentLogger(), loginPage: sendAdminLoginPage, errorPage: (res, status, message) => sendErrorPage(res, status, { message }) });
  app.use(admin.routes);
  const pages = mountDocsPages({ app, db, store, admin, logger: silentLogger(), assistant, gaps, config, chatConfig: new ChatConfigStore(store, silentLogger()) });
  await pages.chatConfig.ready;
  // The final handlers of core/server.ts: error pages in the site's layout.
  app.use(notFoundPage);
  app.use(errorPage);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    assistant,
    pages,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
