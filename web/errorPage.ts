import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { renderPage, sendPage } from './layout.js';
import { html } from './html.js';
import { errorMessage, errorStatus, wantsPage } from '../core/http/errors.js';

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

/** The last route: 404 as a page, JSON for /api and JSON clients. */
export const notFoundPage: RequestHandler = (req, res) => {
  if (wantsPage(req)) sendErrorPage(res, 404, { path: req.path });
  else res.status(404).json({ error: 'not found' });
};

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
