import { createHash } from 'node:crypto';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { z } from 'zod';
import type { CoreConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import type { Store } from '../store/sqlStore.js';
import { storeOf } from '../store/appStore.js';
import { AdminSessionStore } from './adminStore.js';
import { loginThrottle, type LoginThrottle } from './adminThrottle.js';
import { clearCookie, cookieSecret, newToken, readCookie, safeEqual, sign, unsign, writeCookie } from '../http/cookies.js';


/**
 * Admin login for /admin/* and /inspect: one password (ADMIN_PASSWORD), a signed session cookie
 * whose row lives on the store port (the id is stored hashed), and a CSRF token per session that
 * every state-changing admin form must send back (`_csrf` field or `X-CSRF-Token` header).
 * Unset ADMIN_PASSWORD = admin pages answer 404: nothing to guess. The login page itself is drawn
 * by web/admin/loginPage.ts, handed in as `loginPage`; the throttle is adminThrottle.ts.
 * One per process: core builds it, mounts its login routes and hands it to every surface (`ctx.admin`).
 *
 *   router.get('/admin/x', ctx.admin.requireAdmin, (req, res) => … csrfField(ctx.admin.csrfToken(res)) …);
 *   router.post('/admin/x', ctx.admin.requireAdmin, ctx.admin.form, ctx.admin.verifyCsrf, handler);
 */

const ADMIN_COOKIE = 'palabre_admin';
const LOGIN_CSRF_COOKIE = 'palabre_login_csrf';
const SESSION_TTL_MS = 12 * 3600_000;

interface AdminSession {
  csrf: string;
}

/** What the login page shows: the form's CSRF token, where to go after, and why it is shown again. */
export interface AdminLoginView {
  csrf: string;
  next: string;
  error?: string;
  status: number;
}

export interface AdminAuth {
  /** False when ADMIN_PASSWORD is unset. */
  enabled: boolean;
  /** Lets the request through with `res.locals.admin`; otherwise login redirect (GET) or 401. */
  requireAdmin: RequestHandler;
  /** 403 unless the request carries the session's CSRF token. Put after `form` for form posts. */
  verifyCsrf: RequestHandler;
  /** urlencoded body parser with a small limit. */
  form: RequestHandler;
  /** The admin session of a raw request (e.g. a WebSocket upgrade for /inspect), if any. */
  sessionOf(req: Pick<Request, 'headers'>): Promise<AdminSession | undefined>;
  /** The CSRF token of the authenticated request, for its forms' hidden `_csrf` field. */
  csrfToken(res: Response): string;
}

export interface AdminDeps {
  db: Db;
  /** The store port (sessions and throttle counters); default: SQLite over `db`. */
  store?: Store | undefined;
  config: Pick<CoreConfig, 'ADMIN_PASSWORD' | 'SESSION_SECRET'>;
  logger: Logger;
  /** Renders and sends the login page (web/admin/loginPage.ts); a bare form without it. */
  loginPage?: (res: Response, view: AdminLoginView) => void;
  /** Renders and sends an error page in the site's layout (web/errorPage.ts); plain text without it. */
  errorPage?: (res: Response, status: number, message: string) => void;
  /** For tests: a clock. */
  now?: () => number;
}

const loginBody = z.object({
  password: z.string().max(1024),
  _csrf: z.string().max(200),
  next: z.string().max(500).optional(),
});

function hashId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** Only same-site relative paths, so the login cannot be used as an open redirect. */
function safeNext(next: string | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return '/admin/chat/params';
  return next;
}

function passwordMatches(given: string, expected: string): boolean {
  // Compare digests so the timing does not depend on the length of either string.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return a.equals(b) && safeEqual(given, expected);
}

/** The refusals, in the site's layout for a browser when an error page renderer was handed in. */
function refusals(errorPage: AdminDeps['errorPage']): { forbidden(res: Response): void; disabled(res: Response): void } {
  const refuse = (res: Response, status: number, page: string, text: string): void => {
    if (errorPage && res.req.accepts(['html', 'json']) === 'html') errorPage(res, status, page);
    else res.status(status).type('text/plain').send(text);
  };
  return {
    forbidden: (res) => refuse(res, 403, 'Le jeton de sécurité du formulaire manque ou a expiré : rechargez la page, puis envoyez le formulaire à nouveau.', 'Invalid or missing CSRF token.\n'),
    disabled: (res) => refuse(res, 404, 'Les pages d’administration sont désactivées sur ce serveur : définissez la variable ADMIN_PASSWORD pour les activer.', 'Admin pages are disabled: set ADMIN_PASSWORD to enable them.\n'),
  };
}

/** A bare login form, for a process started without the site's pages (tests, embedding). */
function plainLoginPage(res: Response, view: AdminLoginView): void {
  const esc = (v: string) => v.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  res.status(view.status).type('html').send(`<!doctype html><html lang="fr"><title>Connexion</title><main><form method="post" action="/admin/login"><input type="hidden" name="_csrf" value="${esc(view.csrf)}"><input type="hidden" name="next" value="${esc(view.next)}">${view.error ? `<p role="alert">${esc(view.error)}</p>` : ''}<label>Mot de passe <input type="password" name="password"></label><button>Se connecter</button></form></main></html>`);
}

/** The admin session cookie: signed id → hashed row on the store port. */
interface SessionCookie {
  current(req: Pick<Request, 'headers'>): Promise<AdminSession | undefined>;
  open(req: Request, res: Response): Promise<void>;
  close(req: Request, res: Response): Promise<void>;
}

function sessionCookie(store: Store, secret: Buffer, now: () => number): SessionCookie {
  const sessions = new AdminSessionStore(store);
  const idOf = (req: Pick<Request, 'headers'>): string | undefined => {
    const raw = readCookie(req, ADMIN_COOKIE);
    return raw ? unsign(secret, raw) : undefined;
  };
  return {
    async current(req) {
      const id = idOf(req);
      if (!id) return undefined;
      const row = await sessions.find(hashId(id), now());
      return row ? { csrf: row.csrf } : undefined;
    },
    async open(req, res) {
      const t = now();
      await sessions.purge(t);
      const id = newToken();
      await sessions.insert(hashId(id), newToken(), t, t + SESSION_TTL_MS);
      writeCookie(req, res, ADMIN_COOKIE, sign(secret, id), { sameSite: 'Strict', maxAgeS: SESSION_TTL_MS / 1000 });
    },
    async close(req, res) {
      const id = idOf(req);
      if (id) await sessions.remove(hashId(id));
      clearCookie(req, res, ADMIN_COOKIE);
    },
  };
}

/** The admin service and its routes (/admin/login, /admin/logout), which core mounts once. */
export function createAdminAuth(deps: AdminDeps): AdminAuth & { routes: Router } {
  const { db, config, logger, now = Date.now } = deps;
  const store = storeOf({ db, store: deps.store });
  const cookie = sessionCookie(store, cookieSecret(config.SESSION_SECRET), now);
  const enabled = Boolean(config.ADMIN_PASSWORD);
  const form = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 50 });
  const { forbidden, disabled } = refusals(deps.errorPage);
  const routes = express.Router();
  mountLoginRoutes(routes, { deps, cookie, form, throttle: loginThrottle({ store, db, logger }), forbidden, disabled });

  const requireAdmin: RequestHandler = async (req: Request, res: Response, next: NextFunction) => {
    if (!enabled) return disabled(res);
    const session = await cookie.current(req);
    if (session) {
      res.locals.admin = session;
      return next();
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      return res.redirect(303, `/admin/login?next=${encodeURIComponent(req.originalUrl)}`);
    }
    res.status(401).type('text/plain').send('Admin login required.\n');
  };

  const verifyCsrf: RequestHandler = (req, res, next) => {
    const session = res.locals.admin as AdminSession | undefined;
    const body = req.body as Record<string, unknown> | undefined;
    const given = typeof body?._csrf === 'string' ? body._csrf : req.get('x-csrf-token');
    if (!session || !given || !safeEqual(given, session.csrf)) {
      logger.warn({ event: 'csrf_rejected', path: req.path }, 'CSRF token rejected');
      return forbidden(res);
    }
    next();
  };

  return {
    routes,
    enabled,
    requireAdmin,
    verifyCsrf,
    form,
    csrfToken(res) {
      const session = res.locals.admin as AdminSession | undefined;
      if (!session) throw new Error('csrfToken() outside requireAdmin');
      return session.csrf;
    },
    sessionOf: (req) => (enabled ? cookie.current(req) : Promise.resolve(undefined)),
  };
}

/** GET/POST /admin/login (CSRF cookie, throttle, password) and POST /admin/logout. */
function mountLoginRoutes(app: Router, o: { deps: AdminDeps; cookie: SessionCookie; form: RequestHandler; throttle: LoginThrottle } & ReturnType<typeof refusals>): void {
  const { deps, cookie, form, throttle, forbidden, disabled } = o;
  const loginPage = deps.loginPage ?? plainLoginPage;
  const { logger } = deps;
  const password = deps.config.ADMIN_PASSWORD;

  /** The login form, with a fresh token in its own cookie (double submit: there is no session yet). */
  function showLogin(res: Response, view: { next: string; error?: string; status?: number }): void {
    const csrf = newToken();
    writeCookie(res.req, res, LOGIN_CSRF_COOKIE, csrf, { path: '/admin', sameSite: 'Strict', maxAgeS: 3600 });
    loginPage(res, { csrf, next: view.next, ...(view.error ? { error: view.error } : {}), status: view.status ?? 200 });
  }

  app.get('/admin/login', async (req, res) => {
    if (!password) return disabled(res);
    const next = safeNext(typeof req.query.next === 'string' ? req.query.next : undefined);
    if (await cookie.current(req)) return res.redirect(303, next);
    showLogin(res, { next });
  });

  app.post('/admin/login', form, async (req, res) => {
    if (!password) return disabled(res);
    const parsed = loginBody.safeParse(req.body);
    const next = safeNext(parsed.success ? parsed.data.next : undefined);
    const cookieToken = readCookie(req, LOGIN_CSRF_COOKIE);
    if (!parsed.success || !cookieToken || !safeEqual(parsed.data._csrf, cookieToken)) return forbidden(res);
    const client = req.ip ?? 'unknown';
    // Counted before the password is looked at, so that parallel guesses cannot all pass.
    const blocked = await throttle.attempt(client);
    if (blocked) {
      logger.warn({ event: 'admin_login_throttled', ...blocked }, 'admin login throttled');
      res.set('Retry-After', String(blocked.retryS));
      return showLogin(res, { next, error: 'Trop de tentatives : réessayez dans quelques minutes.', status: 429 });
    }
    if (!passwordMatches(parsed.data.password, password)) {
      logger.warn({ event: 'admin_login_failed' }, 'admin login failed');
      return showLogin(res, { next, error: 'Mot de passe incorrect.', status: 401 });
    }
    await throttle.succeeded(client);
    await cookie.open(req, res);
    clearCookie(req, res, LOGIN_CSRF_COOKIE, '/admin');
    logger.info({ event: 'admin_login' }, 'admin logged in');
    res.redirect(303, next);
  });

  app.post('/admin/logout', form, async (req, res) => {
    const session = await cookie.current(req);
    const token = (req.body as Record<string, unknown> | undefined)?._csrf;
    if (!session || typeof token !== 'string' || !safeEqual(token, session.csrf)) return forbidden(res);
    await cookie.close(req, res);
    res.redirect(303, '/admin/login');
  });
}
