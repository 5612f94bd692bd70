import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type IRouter, type Response } from 'express';
import { html, type HtmlValue, type SafeHtml } from './html.js';

/**
 * The page shell every palabre page shares (docs assistant, T2, inspector): landmarks (header,
 * nav, main, footer), a skip link, the site navigation, the stylesheet, and scripts only as
 * external files from /static (the CSP forbids inline scripts, so nothing a document or a model
 * produces can run). RGAA 4.1: one <h1> per page is the caller's job, inside `body`.
 *
 *   sendPage(res, renderPage({ title: 'Assistant', current: '/assistant', body: html`<h1>…</h1>`,
 *     scripts: ['/static/chat.js'] }));
 */

export interface NavLink {
  href: string;
  label: string;
  /** Lower first; ties keep registration order. */
  order?: number;
}

const navLinks: NavLink[] = [];

/** Surfaces add their entry pages at start; the nav shows what this process serves. */
export function addNavLink(link: NavLink): void {
  if (navLinks.some((l) => l.href === link.href)) return;
  navLinks.push(link);
  navLinks.sort((a, b) => (a.order ?? 50) - (b.order ?? 50));
}

function getNavLinks(): readonly NavLink[] {
  return navLinks;
}

export interface PageOptions {
  /** Text of <title>; " — palabre" is appended. */
  title: string;
  /** Page content inside <main>, starting with its <h1>. */
  body: SafeHtml;
  lang?: string;
  /** Path of the current page: its nav link gets aria-current="page". */
  current?: string;
  /** External scripts (paths under /static), loaded as deferred modules. */
  scripts?: string[];
  /** Extra stylesheets after palabre.css. */
  styles?: string[];
  /** Shown in a status banner above the content, e.g. "offline provider in use". */
  notice?: SafeHtml | string;
  /** Content placed after <main> but inside <body> (e.g. an off-canvas <aside>). */
  after?: SafeHtml;
  /** Extra class on <body> (page-specific layout). */
  bodyClass?: string;
  /** Override the default navigation links. */
  nav?: readonly NavLink[];
}

export function renderPage(opts: PageOptions): string {
  const nav = opts.nav ?? navLinks;
  const navItems: HtmlValue[] = nav.map((l) =>
    l.href === opts.current
      ? html`<li><a href="${l.href}" aria-current="page">${l.label}</a></li>`
      : html`<li><a href="${l.href}">${l.label}</a></li>`,
  );
  const styles = ['/static/palabre.css', ...(opts.styles ?? [])];
  const doc = html`<!doctype html>
<html lang="${opts.lang ?? 'fr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} — palabre</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
${styles.map((href) => html`<link rel="stylesheet" href="${href}">
`)}${(opts.scripts ?? []).map((src) => html`<script type="module" src="${src}"></script>
`)}</head>
<body${opts.bodyClass ? html` class="${opts.bodyClass}"` : ''}>
<a class="skip-link" href="#page_main">Aller au contenu principal</a>
<header class="site-header">
<p class="site-name"><a href="/">palabre</a></p>
${navItems.length ? html`<nav class="site-nav" aria-label="Navigation principale"><ul>${navItems}</ul></nav>` : ''}
</header>
${opts.notice ? html`<div class="notice" role="status">${opts.notice}</div>
` : ''}<main id="page_main" tabindex="-1">
${opts.body}
</main>
${opts.after ?? ''}
<footer class="site-footer"><p>palabre — conversations IA en statecharts XState</p></footer>
</body>
</html>
`;
  return doc.value;
}

/**
 * The pages' Content-Security-Policy: no inline script, no eval, no plugin, same-origin only.
 * Inline styles stay forbidden too (style attributes included), so sanitised documents cannot
 * restyle the page. `connectExtra` lets a page add e.g. a WebSocket origin.
 */
export function pageCsp(connectExtra: string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${["'self'", ...connectExtra].join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Sends a rendered page with the strict CSP and no caching of personalised content. */
export function sendPage(res: Response, page: string, status = 200, csp = pageCsp()): void {
  res.status(status);
  res.set('Content-Type', 'text/html; charset=utf-8');
  res.set('Content-Security-Policy', csp);
  res.set('X-Content-Type-Options', 'nosniff');
  res.set('Referrer-Policy', 'same-origin');
  res.set('Cache-Control', 'no-store');
  res.send(page);
}

/**
 * A folder of web/ (`static`, `t2/static`): from the sources (tsx), or, for the compiled
 * dist/web, in the checkout beside it (tsc does not copy assets). The one static resolver.
 */
export function webAssetDir(relative: string): string {
  const here = fileURLToPath(new URL(`./${relative}`, import.meta.url));
  if (existsSync(here)) return here;
  return fileURLToPath(new URL(`../../web/${relative}`, import.meta.url));
}

/** web/static. */
function staticDir(): string {
  return webAssetDir('static');
}

const mounted = new WeakSet<IRouter>();

/** Serves web/static under /static once per app (several surfaces may ask). */
export function mountStatic(app: IRouter): void {
  if (mounted.has(app)) return;
  mounted.add(app);
  // Browsers ask for /favicon.ico whatever the page says (JSON responses, old bookmarks).
  app.get('/favicon.ico', (_req, res) => {
    res.type('image/svg+xml').set('Cache-Control', 'public, max-age=86400').sendFile('favicon.svg', { root: staticDir() });
  });
  app.use(
    '/static',
    express.static(staticDir(), {
      index: false,
      fallthrough: true,
      setHeaders: (res) => {
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Cache-Control', 'no-cache');
      },
    }),
  );
}

const homes = new WeakSet<IRouter>();

/**
 * `/`: the list of pages this process serves (the nav registry), so the header's "palabre" link
 * always leads somewhere. Idempotent per app; any surface with pages may call it.
 */
export function mountHome(app: IRouter): void {
  if (homes.has(app)) return;
  homes.add(app);
  app.get('/', (_req, res) => {
    const links = getNavLinks();
    const body = html`<h1>palabre</h1>
<p>Conversations IA en statecharts XState : chaque conversation est un acteur, relié à son transport.</p>
<h2>Pages</h2>
${links.length ? html`<ul>${links.map((l) => html`<li><a href="${l.href}">${l.label}</a></li>`)}</ul>` : html`<p>Aucune page n’est servie par ce processus.</p>`}
<p>État du service : <a href="/healthz">/healthz</a> · métriques : <a href="/metrics">/metrics</a></p>
<h2>Pour les développeurs</h2>
<ul>
<li>Le crâne Skull écoute sur MQTT : publiez sur <code>asr/text</code> ou <code>ai/request</code>, la réponse arrive sur <code>ai/response</code> (voir <code>docs/skull.md</code>).</li>
<li>L’inspecteur de statecharts (<a href="/inspect">/inspect</a>) montre chaque acteur vivant ; il demande une connexion administrateur (variable <code>ADMIN_PASSWORD</code>).</li>
<li>Les statecharts s’exportent avec <code>palabre machines --format mermaid|json|scxml|svg</code>.</li>
</ul>`;
    sendPage(res, renderPage({ title: 'Accueil', current: '/', body }));
  });
}
