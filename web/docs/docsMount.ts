import type { IRouter } from 'express';
import type { DocsAssistant } from '../../machines/chatContract.js';
import { storeOf } from '../../core/store/appStore.js';
import type { Store } from '../../core/store/sqlStore.js';
import { chatSettingsOverridesSchema } from '../../machines/chatSettings.js';
import type { CoreConfig } from '../../core/config/schema.js';
import type { Logger } from '../../core/log.js';
import type { Db } from '../../core/store/db.js';
import { addNavLink, mountHome, mountStatic } from '../layout.js';
import type { AdminAuth } from '../../core/admin/adminAuth.js';
import { VisitorSessions } from '../../transports/http/session.js';
import type { DocsVisitorSessions } from './visitor.js';
import { mountAdminChatParamsPage, type ChatConfigEditor } from './adminChatParamsPage.js';
import { mountAdminGapsPage, type GapsReport } from './adminGapsPage.js';
import { mountAssistantPage } from './assistantPage.js';
import { mountDocsViewerPage } from './docsViewerPage.js';
import { mountDiagrams } from './diagrams.js';

/** Mounts /assistant, /docs, /admin/chat/params, /admin/docs/gaps (and /static) on a router. */

export interface DocsPagesDeps<C extends ChatConfigEditor = ChatConfigEditor> {
  app: IRouter;
  db: Db;
  /** The process's admin login (core/admin/adminAuth.ts). */
  admin: AdminAuth;
  /** The store port; default: SQLite over `db`. */
  store?: Store | undefined;
  /** Signs the visitor cookie (default: a random secret per process). */
  config: Pick<CoreConfig, 'SESSION_SECRET'>;
  logger: Logger;
  assistant: DocsAssistant;
  /** The saved ChatConfig of /docs (actors/docs/chatConfigStore.ts, built by the composition root). */
  chatConfig: C;
  /** Corpus folder, for the images documents reference (default: the core's retriever root). */
  corpusRoot?: string;
  /** Extra model names suggested in the settings forms (the configured default is always there). */
  models?: string[];
  /** The questions the docs did not answer (/admin/docs/gaps); without it the page is not mounted. */
  gaps?: GapsReport;
}

export interface DocsPages<C extends ChatConfigEditor = ChatConfigEditor> {
  sessions: DocsVisitorSessions;
  chatConfig: C;
  admin: AdminAuth;
}

export function mountDocsPages<C extends ChatConfigEditor>(d: DocsPagesDeps<C>): DocsPages<C> {
  mountStatic(d.app);
  mountHome(d.app);
  const store = storeOf({ db: d.db, store: d.store });
  const sessions = new VisitorSessions(store, { settingsSchema: chatSettingsOverridesSchema, ...(d.config.SESSION_SECRET ? { sessionSecret: d.config.SESSION_SECRET } : {}) });
  const { admin, chatConfig } = d;
  const models = (): string[] => [...new Set([d.assistant.defaults().model, ...(d.models ?? [])])];
  const pageDeps = { assistant: d.assistant, sessions, logger: d.logger, models };
  mountAssistantPage(d.app, pageDeps);
  mountDiagrams(d.app);
  const corpusRoot = d.corpusRoot ?? (d.assistant as { retriever?: { root?: string } }).retriever?.root;
  mountDocsViewerPage(d.app, { ...pageDeps, chatConfig, ...(corpusRoot ? { corpusRoot } : {}) });
  mountAdminChatParamsPage(d.app, { assistant: d.assistant, chatConfig, admin, logger: d.logger, models });
  addNavLink({ href: '/assistant', label: 'Assistant', order: 10 });
  addNavLink({ href: '/docs', label: 'Documentation', order: 11 });
  if (d.gaps) mountAdminGapsPage(d.app, { gaps: d.gaps, admin });
  if (admin.enabled) addNavLink({ href: '/admin/chat/params', label: 'Admin du chat', order: 90 });
  if (admin.enabled && d.gaps) addNavLink({ href: '/admin/docs/gaps', label: 'Questions sans réponse', order: 91 });
  return { sessions, chatConfig, admin };
}
