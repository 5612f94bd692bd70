import { createHash } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { Config } from '../../core/config/index.js';
import type { Logger } from '../../core/log.js';
import type { Db } from '../../core/store/db.js';
import type { Store } from '../../core/store/store.js';
import { storeOf } from '../../core/store/appStore.js';
import { AdminSessionStore, loginLimiter } from './adminStore.js';
import { html, renderPage, sendPage, type SafeHtml } from '../../web/layout.js';
import { clearCookie, cookieSecret, newToken, readCookie, safeEqual, sign, unsign, writeCookie } from './cookies.js';

/**
 * Admin login for /admin/* and /inspect: one password (ADMIN_PASSWORD), a signed session cookie
 * whose row lives in SQLite (the id is stored hashed), and a CSRF token per session that every
 * state-changing admin form must send back (`_csrf` field or `X-CSRF-Token` header).
 * Unset ADMIN_PASSWORD = admin pages answer 404: nothing to guess.
 *
 *   const admin = adminAuth({ app, db, config, logger });
 *   app.get('/admin/x', admin.requireAdmin, (req, res) => … admin.csrfField(res) …);
 *   app.post('/admin/x', admin.requireAdmin, admin.form, admin.verifyCsrf, handler);
 */

export const ADMIN_COOKIE = 'palabre_admin';
const LOGIN_CSRF_COOKIE = 'palabre_login_csrf';
const SESSION_TTL_MS = 12 * 3600_000;
/** Wrong passwords allowed per client address, then per account (any address), in the window. */
export const MAX_FAILURES = 5;
export const MAX_ACCOUNT_FAILURES = 10;
const FAILURE_WINDOW_S = 10 * 60;
/** There is one admin account (ADMIN_PASSWORD); a multi-user login would key by user name. */
const ADMIN_ACCOUNT = 'admin';

export interface AdminSession {
  csrf: string;
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
  /** The hidden CSRF input for forms of an authenticated page. */
  csrfField(res: Response): SafeHtml;
  /** The admin session of a raw request (e.g. a WebSocket upgrade for /inspect), if any. */
  sessionOf(req: Pick<Request, 'headers'>): Promise<AdminSession | undefined>;
  csrfToken(res: Response): string;
}

export interface AdminDeps {
  app: Express;
  db: Db;
  /** The store port (sessions and throttle counters); default: SQLite over `db`. */
  store?: Store | undefined;
  config: Pick<Config, 'ADMIN_PASSWORD' | 'SESSION_SECRET'>;
  logger: Logger;
  /** For tests: a clock. */
  now?: () => number;
}

const instances = new WeakMap<Express, AdminAuth>();

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

/** One instance per express app: the docs pages and /inspect share it. */
export function adminAuth(deps: AdminDeps): AdminAuth {
  const existing = instances.get(deps.app);
  if (existing) return existing;
  const auth = createAdminAuth(deps);
  instances.set(deps.app, auth);
  return auth;
}

function createAdminAuth({ app, db, store: given, config, logger, now = Date.now }: AdminDeps): AdminAuth {
  const store = storeOf({ db, store: given });
  const sessions = new AdminSessionStore(store);
  const secret = cookieSecret(config.SESSION_SECRET);
  const password = config.ADMIN_PASSWORD;
  const enabled = Boolean(password);
  // Failed logins are counted twice. Per client address (req.ip: TRUST_PROXY decides how many
  // proxy hops it skips), so one client does not lock the admin out for everyone; and per account,
  // so rotating X-Forwarded-For (or a botnet) gets MAX_ACCOUNT_FAILURES guesses per window in all,
  // not 5 per address. The price: a spray of wrong passwords locks the account for the window.
  // rate-limiter-flexible keeps the counters in the store's engine (SQLite file, or Postgres shared
  // by every instance), so they survive a restart and hold whichever instance answers.
  const limiter = (tableName: string, points: number) => loginLimiter({ store, db, tableName, points, durationS: FAILURE_WINDOW_S, logger });
  // Created one after the other: two CREATE TABLE IF NOT EXISTS at once can collide on Postgres.
  const limiters = (async () => {
    const address = await limiter('admin_login_failures_by_address', MAX_FAILURES);
    return { byAddress: address, byAccount: await limiter('admin_login_failures_by_account', MAX_ACCOUNT_FAILURES) };
  })();
  limiters.catch(() => undefined); // logged by loginLimiter; the login answers 500 then
  const form = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 50 });

  async function currentSession(req: Request): Promise<AdminSession | undefined> {
    const raw = readCookie(req, ADMIN_COOKIE);
    const id = raw ? unsign(secret, raw) : undefined;
    if (!id) return undefined;
    const row = await sessions.find(hashId(id), now());
    return row ? { csrf: row.csrf } : undefined;
  }

  function loginPage(res: Response, opts: { next: string; error?: string; status?: number }): void {
    const token = newToken();
    writeCookie(res.req, res, LOGIN_CSRF_COOKIE, token, { path: '/admin', sameSite: 'Strict', maxAgeS: 3600 });
    const body = html`<div class="narrow">
<h1>Connexion administrateur</h1>
${opts.error ? html`<p class="form-error" role="alert" id="login-error">${opts.error}</p>` : ''}
<form method="post" action="/admin/login">
<input type="hidden" name="_csrf" value="${token}">
<input type="hidden" name="next" value="${opts.next}">
<div class="field">
<label for="password">Mot de passe administrateur</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${opts.error ? html` aria-describedby="login-error" aria-invalid="true"` : ''}>
</div>
<div class="actions"><button type="submit">Se connecter</button></div>
</form>
</div>`;
    sendPage(res, renderPage({ title: 'Connexion administrateur', body }), opts.status ?? 200);
  }

  function disabled(res: Response): void {
    res.status(404).type('text/plain').send('Admin pages are disabled: set ADMIN_PASSWORD to enable them.\n');
  }

  app.get('/admin/login', async (req, res) => {
    if (!enabled) return disabled(res);
    const next = safeNext(typeof req.query.next === 'string' ? req.query.next : undefined);
    if (await currentSession(req)) return res.redirect(303, next);
    loginPage(res, { next });
  });

  app.post('/admin/login', form, async (req, res) => {
    if (!enabled || !password) return disabled(res);
    const parsed = loginBody.safeParse(req.body);
    const next = safeNext(parsed.success ? parsed.data.next : undefined);
    const cookieToken = readCookie(req, LOGIN_CSRF_COOKIE);
    if (!parsed.success || !cookieToken || !safeEqual(parsed.data._csrf, cookieToken)) {
      res.status(403).type('text/plain').send('Invalid or missing CSRF token.\n');
      return;
    }
    const t = now();
    const client = req.ip ?? 'unknown';
    const { byAddress, byAccount } = await limiters;
    const [address, account] = await Promise.all([byAddress.get(client), byAccount.get(ADMIN_ACCOUNT)]);
    const blocked = [address && address.consumedPoints >= MAX_FAILURES ? address : null, account && account.consumedPoints >= MAX_ACCOUNT_FAILURES ? account : null]
      .filter((r) => r !== null);
    if (blocked.length > 0) {
      const retryS = Math.max(1, Math.ceil(Math.max(...blocked.map((r) => r.msBeforeNext)) / 1000));
      logger.warn({ event: 'admin_login_throttled', by: address && address.consumedPoints >= MAX_FAILURES ? 'address' : 'account', retryS }, 'admin login throttled');
      res.set('Retry-After', String(retryS));
      return loginPage(res, { next, error: 'Trop de tentatives : réessayez dans quelques minutes.', status: 429 });
    }
    if (!passwordMatches(parsed.data.password, password)) {
      // consume() rejects once the points are spent: that is the throttle, not an error.
      await Promise.all([byAddress.consume(client).catch(() => undefined), byAccount.consume(ADMIN_ACCOUNT).catch(() => undefined)]);
      logger.warn({ event: 'admin_login_failed' }, 'admin login failed');
      return loginPage(res, { next, error: 'Mot de passe incorrect.', status: 401 });
    }
    await Promise.all([byAddress.delete(client), byAccount.delete(ADMIN_ACCOUNT)]);
    await sessions.purge(t);
    const id = newToken();
    await sessions.insert(hashId(id), newToken(), t, t + SESSION_TTL_MS);
    clearCookie(req, res, LOGIN_CSRF_COOKIE, '/admin');
    writeCookie(req, res, ADMIN_COOKIE, sign(secret, id), { sameSite: 'Strict', maxAgeS: SESSION_TTL_MS / 1000 });
    logger.info({ event: 'admin_login' }, 'admin logged in');
    res.redirect(303, next);
  });

  app.post('/admin/logout', form, async (req, res) => {
    const session = await currentSession(req);
    const token = (req.body as Record<string, unknown> | undefined)?._csrf;
    if (!session || typeof token !== 'string' || !safeEqual(token, session.csrf)) {
      res.status(403).type('text/plain').send('Invalid or missing CSRF token.\n');
      return;
    }
    const raw = readCookie(req, ADMIN_COOKIE);
    const id = raw ? unsign(secret, raw) : undefined;
    if (id) await sessions.remove(hashId(id));
    clearCookie(req, res, ADMIN_COOKIE);
    res.redirect(303, '/admin/login');
  });

  const requireAdmin: RequestHandler = async (req: Request, res: Response, next: NextFunction) => {
    if (!enabled) return disabled(res);
    const session = await currentSession(req);
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
      res.status(403).type('text/plain').send('Invalid or missing CSRF token.\n');
      return;
    }
    next();
  };

  function csrfToken(res: Response): string {
    const session = res.locals.admin as AdminSession | undefined;
    if (!session) throw new Error('csrfToken() outside requireAdmin');
    return session.csrf;
  }

  return {
    enabled,
    requireAdmin,
    verifyCsrf,
    form,
    csrfToken,
    sessionOf: (req) => (enabled ? currentSession(req as Request) : Promise.resolve(undefined)),
    csrfField: (res) => html`<input type="hidden" name="_csrf" value="${csrfToken(res)}">`,
  };
}
