import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdminAuth } from '../../core/admin/adminAuth.js';
import { MAX_ACCOUNT_FAILURES, MAX_FAILURES } from '../../core/admin/adminThrottle.js';
import { silentLogger } from '../../core/log.js';
import { ENGINES, engineFixtures, type EngineFixture } from '../support/stores.js';

/**
 * The admin login throttle under parallel guesses, on both engines of the store port: every
 * attempt is counted before its password is checked, so a thousand guesses sent at once get no
 * more checks than a thousand sent one by one. Over real HTTP, through the login route.
 */
const PASSWORD = 'the right admin password';

/** An express app with only the admin login, on the fixture's store; the login page is its CSRF token in plain text. */
async function loginServer(f: EngineFixture, trustProxy: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const { store, db } = await f.open();
  const app = express();
  if (trustProxy) app.set('trust proxy', true);
  const admin = createAdminAuth({
    db, store, logger: silentLogger(),
    config: { ADMIN_PASSWORD: PASSWORD, SESSION_SECRET: 'throttle-test-session-secret-0123' },
    loginPage: (res, view) => void res.status(view.status).type('text/plain').send(`csrf=${view.csrf}`),
  });
  app.use(admin.routes);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A login form (its CSRF cookie and token), fetched from `headers`' address. */
async function loginForm(url: string, headers: Record<string, string>): Promise<{ cookie: string; csrf: string }> {
  const page = await fetch(`${url}/admin/login`, { headers });
  const cookie = page.headers.getSetCookie().find((c) => c.startsWith('palabre_login_csrf='))?.split(';')[0] ?? '';
  const csrf = /^csrf=(.+)$/.exec(await page.text())?.[1] ?? '';
  return { cookie, csrf };
}

/** `n` wrong passwords posted at once (each with its own form); the statuses. */
async function parallelGuesses(url: string, n: number, headersOf: (i: number) => Record<string, string>): Promise<number[]> {
  const forms = await Promise.all(Array.from({ length: n }, (_, i) => loginForm(url, headersOf(i))));
  const posts = forms.map((f, i) => fetch(`${url}/admin/login`, {
    method: 'POST', redirect: 'manual',
    headers: { cookie: f.cookie, ...headersOf(i) },
    body: new URLSearchParams({ password: `wrong-${i}-guess`, _csrf: f.csrf }),
  }).then((r) => r.status));
  return Promise.all(posts);
}

const count = (statuses: number[], status: number): number => statuses.filter((s) => s === status).length;

describe.each(ENGINES)('admin login throttle under parallel guesses: $name', (engine) => {
  const fixture = engineFixtures(engine, afterEach);

  describe.skipIf(!engine.ok)(`(${engine.reason})`, () => {
    it(`${String(MAX_FAILURES)} wrong passwords checked per address, however many arrive at once; the right one then waits too`, async () => {
      const f = await fixture();
      const srv = await loginServer(f, false);
      try {
        const statuses = await parallelGuesses(srv.url, 120, () => ({}));
        expect(count(statuses, 401)).toBe(MAX_FAILURES);
        expect(count(statuses, 429)).toBe(120 - MAX_FAILURES);
        const form = await loginForm(srv.url, {});
        const right = await fetch(`${srv.url}/admin/login`, { method: 'POST', redirect: 'manual', headers: { cookie: form.cookie }, body: new URLSearchParams({ password: PASSWORD, _csrf: form.csrf }) });
        expect(right.status).toBe(429);
        expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
      } finally {
        await srv.close();
      }
    }, 60_000);

    it(`rotating X-Forwarded-For behind a trusting proxy: ${String(MAX_ACCOUNT_FAILURES)} checks in all, even in parallel`, async () => {
      const f = await fixture();
      const srv = await loginServer(f, true);
      try {
        const statuses = await parallelGuesses(srv.url, 60, (i) => ({ 'x-forwarded-for': `10.1.${Math.floor(i / 250)}.${(i % 250) + 1}` }));
        expect(count(statuses, 401)).toBe(MAX_ACCOUNT_FAILURES);
        expect(count(statuses, 429)).toBe(60 - MAX_ACCOUNT_FAILURES);
      } finally {
        await srv.close();
      }
    }, 60_000);

    it('one address spending its attempts does not lock the account for another address; a right password clears the counters', async () => {
      const f = await fixture();
      const srv = await loginServer(f, true);
      try {
        const attacker = { 'x-forwarded-for': '10.2.0.1' };
        const statuses = await parallelGuesses(srv.url, 40, () => attacker);
        expect(count(statuses, 401)).toBe(MAX_FAILURES);
        const admin = { 'x-forwarded-for': '10.2.0.2' };
        const form = await loginForm(srv.url, admin);
        const right = await fetch(`${srv.url}/admin/login`, { method: 'POST', redirect: 'manual', headers: { cookie: form.cookie, ...admin }, body: new URLSearchParams({ password: PASSWORD, _csrf: form.csrf }) });
        expect(right.status).toBe(303);
        // The right password cleared the account's count: the account allows its full quota again.
        const after = await parallelGuesses(srv.url, 30, (i) => ({ 'x-forwarded-for': `10.3.0.${i + 1}` }));
        expect(count(after, 401)).toBe(MAX_ACCOUNT_FAILURES);
      } finally {
        await srv.close();
      }
    }, 60_000);
  });
});
