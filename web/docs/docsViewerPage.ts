import express, { type IRouter, type Request, type Response } from 'express';
import { z } from 'zod';
import type { ChatConfigEditor } from './adminChatParamsPage.js';
import { forEmbeddedChat } from '../../machines/chatSettings.js';
import { renderPage, sendPage } from '../layout.js';
import { html, trusted } from '../html.js';
import type { DocsVisitorSession } from './visitor.js';
import { answerInThread, askBodySchema, askMode } from './askFlow.js';
import type { PageDeps } from './assistantPage.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { frontMatterField, splitFrontMatter } from '../../machines/frontMatter.js';
import { createLinkResolver } from './corpusLinks.js';
import { docHref, renderDocument, type RenderContext } from './markdownRender.js';
import { chatBlock, docsIndex, docsTree, providerNotice, type SearchHit } from './views.js';

/**
 * "Le chat" (/docs): the corpus viewer (navigation tree + the document as sanitised HTML) with the
 * embedded chat in an off-canvas panel. The chat's settings are the admin's ChatConfig
 * (forEmbeddedChat), never the visitor's. Source links are plain links to /docs/<path>#<anchor>;
 * web/static/docs.js loads them into the viewer without a reload (`?format=json`).
 */

export interface DocsPageDeps extends PageDeps {
  chatConfig: Pick<ChatConfigEditor, 'get'>;
  /** Corpus folder: images referenced by documents are served from it (raster formats only). */
  corpusRoot?: string;
}

/** Raster images only: an SVG opened directly could run script in this origin. */
const IMAGE_EXT = /\.(png|jpe?g|gif|webp)$/i;

const PREFIX = 'c';

/** A corpus-relative path: no empty, `.` or `..` segment, no backslash or NUL. */
const docPathSchema = z
  .string()
  .min(1)
  .max(500)
  .refine((p) => !p.includes('\\') && !p.includes('\0') && p.split('/').every((s) => s !== '' && s !== '.' && s !== '..'), 'invalid path');

function pathFromParams(req: Request): string | undefined {
  const raw = (req.params as Record<string, unknown>).path;
  const joined = Array.isArray(raw) ? raw.join('/') : typeof raw === 'string' ? raw : '';
  const parsed = docPathSchema.safeParse(joined);
  return parsed.success ? parsed.data : undefined;
}

interface DocView {
  path: string | undefined;
  /** The corpus index (/docs), with this search query when one was sent. */
  index?: { query: string; error?: string };
  session: DocsVisitorSession | undefined;
  askError?: string;
  question?: string;
  httpStatus?: number;
  /** Open the chat panel (after a no-JS post). */
  panelOpen?: boolean;
}

/** Links between corpus pages and the corpus images the viewer can serve, for renderDocument. */
function renderContext(d: DocsPageDeps): RenderContext {
  const root = d.corpusRoot;
  return {
    resolve: createLinkResolver(d.assistant.documents().map((x) => x.path)),
    ...(root ? { imageExists: (p: string) => IMAGE_EXT.test(p) && existsSync(join(root, p)) } : {}),
  };
}

function docBody(d: DocsPageDeps, path: string | undefined): { title: string; content: string; found: boolean; lang: 'fr' | 'en' } {
  const doc = path ? d.assistant.readDocument(path) : undefined;
  if (!doc || !path) {
    return {
      title: 'Document introuvable',
      content: html`<h1 id="doc_title">Document introuvable</h1><p>Ce document n’existe pas dans le corpus. Choisissez-en un dans la liste.</p>`.value,
      found: false,
      lang: 'fr',
    };
  }
  const rendered = renderDocument(doc.markdown, doc.path, renderContext(d));
  // A page made only of front matter (a site's home page) shows its description, not nothing.
  const fm = splitFrontMatter(doc.markdown);
  const description = !rendered.html.trim() && fm.block !== undefined ? frontMatterField(fm.block, 'description') : undefined;
  const content = html`<p class="doc-path" lang="fr">${doc.path}</p>
${rendered.hasH1 ? '' : html`<h1 id="doc_title">${doc.title}</h1>`}
${description ? html`<p>${description}</p>` : ''}
${trusted(rendered.html)}`.value;
  return { title: doc.title, content, found: true, lang: doc.lang ?? 'fr' };
}

/** Search box of the index: the passages' words, one hit per section, up to 20. */
const searchQuerySchema = z.string().trim().max(200, 'Recherche trop longue : 200 caractères au plus.');

function searchHits(d: DocsPageDeps, query: string): SearchHit[] {
  const titles = new Map(d.assistant.documents().map((x) => [x.path, x.title]));
  const seen = new Set<string>();
  const hits: SearchHit[] = [];
  for (const p of d.assistant.search(query, 40)) {
    const key = `${p.path}#${p.anchor}`;
    if (seen.has(key) || p.score <= 0) continue;
    seen.add(key);
    hits.push({ path: p.path, title: titles.get(p.path) ?? p.path, section: p.section, anchor: p.anchor, text: p.text });
    if (hits.length === 20) break;
  }
  return hits;
}

function indexBody(d: DocsPageDeps, query: string, error: string | undefined): { title: string; content: string; found: boolean; lang: 'fr' | 'en' } {
  const hits = query && !error ? searchHits(d, query) : undefined;
  return { title: query && !error ? `Recherche : ${query}` : 'Documentation', content: docsIndex(d.assistant.documents(), error ? '' : query, hits, error).value, found: true, lang: 'fr' };
}

function render(d: DocsPageDeps, res: Response, v: DocView): void {
  const docs = d.assistant.documents();
  const { title, content, found, lang } = v.index ? indexBody(d, v.index.query, v.index.error) : docBody(d, v.path);
  const thread = v.session?.threads.docs ?? [];
  const body = html`<p class="actions"><a class="button" id="chat_toggle" href="#chat_panel" aria-controls="chat_panel">Poser une question à la documentation</a></p>
<div class="docs-layout">
${docsTree(docs, v.path)}
<article class="doc-content" id="doc_view" data-path="${v.path ?? ''}" lang="${lang}">
${trusted(content)}
</article>
</div>`;
  const after = html`<aside id="chat_panel" class="offcanvas" aria-labelledby="chat_title" data-open="${v.panelOpen ? 'true' : 'false'}">
<div class="offcanvas-header"><h2 id="chat_title">Questions sur la documentation</h2><button type="button" class="secondary" id="chat_close" hidden>Fermer le panneau</button></div>
${chatBlock({ action: '/docs/ask', clearAction: '/docs/clear', thread, prefix: PREFIX, headingLevel: 3, hidden: { doc: v.path ?? '' }, ...(v.askError ? { error: v.askError } : {}), ...(v.question ? { question: v.question } : {}) })}
</aside>`;
  const notice = providerNotice(d.assistant.providerName());
  sendPage(
    res,
    renderPage({ title, current: '/docs', body, after, bodyClass: 'docs-page', scripts: ['/static/chat.js', '/static/docs.js'], ...(notice ? { notice } : {}) }),
    v.httpStatus ?? (found ? 200 : 404),
  );
}

export function mountDocsViewerPage(app: IRouter, d: DocsPageDeps): void {
  const form = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 50 });

  app.get('/docs', async (req: Request, res: Response) => {
    const query = searchQuerySchema.safeParse(typeof req.query.q === 'string' ? req.query.q : '');
    if (!query.success) {
      render(d, res, { path: undefined, index: { query: '', error: query.error.issues[0]?.message ?? 'Recherche invalide.' }, session: await d.sessions.load(req), httpStatus: 400 });
      return;
    }
    render(d, res, { path: undefined, index: { query: query.data }, session: await d.sessions.load(req) });
  });

  app.post('/docs/ask', form, async (req: Request, res: Response) => {
    const mode = askMode(req);
    const parsed = askBodySchema.safeParse(req.body);
    const session = await d.sessions.ensure(req, res);
    const docParsed = docPathSchema.safeParse((req.body as Record<string, unknown> | undefined)?.doc);
    // Asked from the index (no document on screen): the index comes back.
    const path = docParsed.success ? docParsed.data : undefined;
    const index = path ? {} : { index: { query: '' } };
    if (!parsed.success) {
      const message = parsed.error.issues[0]?.message ?? 'Question invalide.';
      if (mode !== 'page') {
        res.status(400).json({ error: message });
        return;
      }
      render(d, res, { path, ...index, session, askError: message, httpStatus: 400, panelOpen: true });
      return;
    }
    const settings = forEmbeddedChat(d.assistant.defaults(), d.chatConfig.get()?.settings);
    await answerInThread({
      req, res, mode, logger: d.logger, assistant: d.assistant, settings,
      question: parsed.data.question,
      sessions: d.sessions, session, thread: 'docs',
      prefix: PREFIX,
      headingLevel: 3,
    });
    if (mode === 'page') render(d, res, { path, ...index, session, panelOpen: true });
  });

  app.post('/docs/clear', form, async (req: Request, res: Response) => {
    const session = await d.sessions.load(req);
    if (session) await d.sessions.clearThread(session, 'docs');
    res.redirect(303, '/docs');
  });

  if (d.corpusRoot) {
    const images = express.static(d.corpusRoot, { dotfiles: 'deny', index: false, fallthrough: true, redirect: false });
    app.use('/docs', (req, res, next) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      if (!IMAGE_EXT.test(req.path)) return next();
      res.set('X-Content-Type-Options', 'nosniff');
      images(req, res, next);
    });
  }

  app.get('/docs/*path', async (req: Request, res: Response) => {
    const path = pathFromParams(req);
    if (req.query.format === 'json') {
      const doc = path ? d.assistant.readDocument(path) : undefined;
      if (!doc) {
        res.status(404).json({ error: 'unknown document' });
        return;
      }
      const { title, content, lang } = docBody(d, path);
      res.set('Cache-Control', 'no-store').json({ path: doc.path, title, lang, href: docHref(doc.path), html: content });
      return;
    }
    render(d, res, { path, session: await d.sessions.load(req) });
  });
}
