import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { html, renderPage, sendPage } from './layout.js';

/**
 * Error pages in the site's layout (title, `lang`, header, main landmark, nav), so that a mistyped
 * address or a malformed request shows a page a screen reader can navigate, not a line of plain
 * text. Routes under /api keep their JSON; the error handler of core/server.ts logs before it
 * calls `sendErrorPage`.
 */

const TITLES: Record<number, string> = {
  400: 'Requête invalide',
  401: 'Connexion requise',
  403: 'Accès refusé',
  404: 'Page introuvable',
  405: 'Méthode non autorisée',
  413: 'Requête trop volumineuse',
  500: 'Erreur du serveur',
  503: 'Service indisponible',
};

const DEFAULT_MESSAGES: Record<number, string> = {
  400: 'Le serveur n’a pas pu lire cette requête. Vérifiez l’adresse ou le formulaire envoyé, puis réessayez.',
  404: 'Cette adresse ne correspond à aucune page de ce site. Vérifiez-la, ou repartez de l’accueil.',
  500: 'Une erreur inattendue s’est produite. Réessayez dans un instant ; si elle persiste, prévenez l’administrateur.',
};

export interface ErrorPageOptions {
  /** Replaces the status's usual explanation (French UI text). */
  message?: string;
  /** The path the visitor asked for, shown so they can spot a typo. */
  path?: string;
}

/** Sends an HTML error page with the site's layout and the strict CSP. */
export function sendErrorPage(res: Response, status: number, opts: ErrorPageOptions = {}): void {
  const title = TITLES[status] ?? STATUS_CODES[status] ?? 'Erreur';
  const message = opts.message ?? DEFAULT_MESSAGES[status] ?? DEFAULT_MESSAGES[status >= 500 ? 500 : 400];
  const body = html`<h1>${title}</h1>
<p class="error-code">Erreur ${status}${opts.path ? html` — <code class="error-path">${opts.path.slice(0, 300)}</code>` : ''}</p>
<p>${message}</p>
<p><a href="/">Retour à l’accueil</a></p>`;
  sendPage(res, renderPage({ title: `${title} (${status})`, body, bodyClass: 'error-page' }), status);
}

/** Does this request want a page (a browser), rather than JSON (/api, fetch with Accept: json)? */
export function wantsPage(req: Request): boolean {
  if (req.path === '/api' || req.path.startsWith('/api/')) return false;
  return req.accepts(['html', 'json']) === 'html';
}

/** The last route: 404 as a page, JSON for /api and JSON clients. */
export const notFoundPage: RequestHandler = (req, res) => {
  if (wantsPage(req)) sendErrorPage(res, 404, { path: req.path });
  else res.status(404).json({ error: 'not found' });
};

/** Status of a thrown error (http-errors, body parsers), 500 when it has none. */
export function errorStatus(err: unknown): number {
  const e = (err ?? {}) as { status?: unknown; statusCode?: unknown };
  const raw = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : 500;
  return raw >= 400 && raw < 600 ? raw : 500;
}

/** 4xx from body parsers and http-errors carry a message meant for the client; 5xx never do. */
export function errorMessage(err: unknown, status: number): string {
  const e = (err ?? {}) as { expose?: unknown; message?: unknown };
  return status < 500 && e.expose === true && typeof e.message === 'string' ? e.message : STATUS_CODES[status] ?? 'error';
}

/** Error handler without logging (tests, pages-only apps): a page for browsers, JSON otherwise. */
export const errorPage: ErrorRequestHandler = (err: unknown, req, res, next) => {
  if (res.headersSent) {
    next(err);
    return;
  }
  const status = errorStatus(err);
  if (wantsPage(req)) sendErrorPage(res, status);
  else res.status(status).json({ error: errorMessage(err, status) });
};
