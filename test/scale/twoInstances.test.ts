import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { createAuth } from '../../core/auth.js';
import { silentLogger } from '../../core/log.js';
import type { RunningServer } from '../../core/server.js';
import { startServer } from '../../actors/serve.js';
import { docsSurface } from '../../actors/docs/surface.js';
import { correctionsSurface } from '../../actors/corrections/surface.js';
import { requirePostgres } from '../support/requires.js';
import { createTestDatabase } from '../support/stores.js';

/**
 * Two `palabre serve` instances (in process, real sockets) on one Postgres behave as one service:
 * a correction through A counts in the patterns read through B, a chat setting saved on A
 * applies on B within a second (LISTEN/NOTIFY), an admin login made on A is valid on B, and a
 * visitor's /assistant settings and thread saved through A are what B renders for the same cookie.
 */
const pgReq = requirePostgres();
const PASSWORD = 'two-instances-admin-password';
const TEXTE = `Bonjour Marc,
Je ne pourrai pas venir à la réunion de demain matin car mon fils est malade. Est-ce que tu pourrais prendre des notes pour moi ? Je sais pas encore si je serai là jeudi. Je dois aussi checker les chiffres du budget avant vendredi, donc envoie-moi le document s'il te plaît.
Je te remercie beaucoup.
Nadia`;

const cookieFrom = (res: Response, name: string): string => {
  for (const c of res.headers.getSetCookie()) if (c.startsWith(`${name}=`)) return c.split(';')[0]!;
  return '';
};

describe.skipIf(!pgReq.ok)(`two instances on one Postgres (${pgReq.reason})`, () => {
  let dir: string;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const servers: RunningServer[] = [];
  let a: string;
  let b: string;
  let token: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-two-'));
    const corpus = join(dir, 'corpus');
    mkdirSync(corpus);
    writeFileSync(join(corpus, 'conservation.md'), '# Conservation\n\nLes journaux techniques sont conservés trente jours.\n');
    database = await createTestDatabase(pgReq.path);
    for (const name of ['a', 'b']) {
      const config = loadPalabreConfig({
        env: {
          PORT: '0', MQTT_EMBEDDED_PORT: '0', DATA_DIR: join(dir, name), CORPUS_DIR: corpus, DATABASE_URL: database.url, INSTANCE_ID: name,
          ADMIN_PASSWORD: PASSWORD, SESSION_SECRET: 'shared-session-secret-0123456789', JWT_SECRET: 'shared-jwt-secret-0123456789',
          CHAT_PROVIDER: 'offline', CORRECTION_PROVIDER: 'offline', GRAMMALECTE: 'off', SURFACES: 'docs,corrections',
        },
        dotenvPath: null,
      });
      servers.push(await startServer({ config, logger: silentLogger(), surfaces: [async () => docsSurface, async () => correctionsSurface] }));
    }
    [a, b] = servers.map((s) => s.ctx.publicUrl.replace(/\/$/, '')) as [string, string];
    token = await createAuth(servers[0]!.ctx.config).mintToken({ sub: 'cand-two', plan: 'free' });
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) await s.shutdown('test');
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('/healthz on each: ready, store postgres with its latency, its own instance name', async () => {
    for (const [url, name] of [[a, 'a'], [b, 'b']] as const) {
      const res = await fetch(`${url}/healthz`);
      expect(res.status).toBe(200);
      const h = (await res.json()) as Record<string, unknown>;
      expect(h).toMatchObject({ live: true, ready: true, store: 'postgres', instance: name });
      expect(h.storeLatencyMs).toEqual(expect.any(Number));
      const r = await fetch(`${url}/readyz`);
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ ready: true, store: 'postgres' });
    }
  });

  it('a correction written through A counts in the candidate\'s patterns read through B', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${i % 2 === 0 ? a : b}/corrections/ee`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ tache: 'EE_T1', consigne: 'Écrivez un message à votre collègue pour lui demander de prendre des notes.', texte: TEXTE }),
      });
      expect(res.status).toBe(200);
    }
    const patterns = (await (await fetch(`${b}/candidates/cand-two/patterns`, { headers: { authorization: `Bearer ${token}` } })).json()) as { productions: number; confirmed: Array<{ code: string }> };
    expect(patterns.productions).toBe(3);
    expect(patterns.confirmed.map((c) => c.code)).toContain('negation_incomplete');
  });

  it('admin login on A is valid on B; a chat setting saved on A applies on B within a second', async () => {
    const page = await fetch(`${a}/admin/login`);
    const loginCookie = cookieFrom(page, 'palabre_login_csrf');
    const loginCsrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const login = await fetch(`${a}/admin/login`, { method: 'POST', redirect: 'manual', headers: { cookie: loginCookie }, body: new URLSearchParams({ password: PASSWORD, _csrf: loginCsrf }) });
    expect(login.status).toBe(303);
    const admin = cookieFrom(login, 'palabre_admin');
    // The session row is in Postgres: B knows it.
    const onB = await fetch(`${b}/admin/chat/params`, { headers: { cookie: admin }, redirect: 'manual' });
    expect(onB.status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await onB.text())?.[1] ?? '';
    const t0 = Date.now();
    const saved = await fetch(`${a}/admin/chat/params`, {
      method: 'POST', redirect: 'manual', headers: { cookie: admin },
      body: new URLSearchParams({ _csrf: csrf, model: 'claude-haiku-4-5', k: '7', threshold: '0.25', confident: '0.75', temperature: '0', maxTokens: '321', historyTurns: '1' }),
    });
    expect(saved.status).toBe(303);
    await vi.waitFor(async () => {
      const html = await (await fetch(`${b}/admin/chat/params`, { headers: { cookie: admin } })).text();
      expect(html).toMatch(/name="maxTokens"[^>]*value="321"|value="321"[^>]*name="maxTokens"/);
    }, { timeout: 1000, interval: 20 });
    expect(Date.now() - t0).toBeLessThan(1000);
  });
  it('a visitor\'s /assistant settings saved through A are what B renders for the same cookie, and B\'s answers show on A', async () => {
    const saved = await fetch(`${a}/assistant/settings`, {
      method: 'POST', redirect: 'manual',
      body: new URLSearchParams({ model: 'claude-haiku-4-5', k: '9', threshold: '0.3', confident: '0.7', temperature: '0', maxTokens: '222', historyTurns: '1' }),
    });
    expect(saved.status).toBe(303);
    const visitor = cookieFrom(saved, 'palabre_sid');
    expect(visitor).not.toBe('');
    const onB = await (await fetch(`${b}/assistant`, { headers: { cookie: visitor } })).text();
    expect(onB).toMatch(/id="s_k" name="k" value="9"/);
    expect(onB).toMatch(/id="s_maxTokens" name="maxTokens" value="222"/);
    // Another browser on B still has the defaults: the row is this cookie's, not B's.
    expect(await (await fetch(`${b}/assistant`)).text()).not.toMatch(/id="s_k" name="k" value="9"/);
    const asked = await fetch(`${b}/assistant/ask`, { method: 'POST', headers: { cookie: visitor }, body: new URLSearchParams({ question: 'Combien de temps les journaux sont-ils conservés ?' }) });
    expect(asked.status).toBe(200);
    expect(cookieFrom(asked, 'palabre_sid')).toBe(''); // B found the session: no new one
    const onA = await (await fetch(`${a}/assistant`, { headers: { cookie: visitor } })).text();
    expect(onA).toContain('Combien de temps les journaux sont-ils conservés ?');
    const reset = await fetch(`${b}/assistant/settings/reset`, { method: 'POST', redirect: 'manual', headers: { cookie: visitor } });
    expect(reset.status).toBe(303);
    expect(await (await fetch(`${a}/assistant`, { headers: { cookie: visitor } })).text()).not.toMatch(/id="s_k" name="k" value="9"/);
  });
});

describe.skipIf(!pgReq.ok)(`/healthz when the store goes away (${pgReq.reason})`, () => {
  it('ready turns false (503, store_unreachable) while /livez stays 200: the balancer stops sending work here', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-gone-'));
    const database = await createTestDatabase(pgReq.path);
    const config = loadPalabreConfig({ env: { PORT: '0', MQTT_EMBEDDED_PORT: '0', DATA_DIR: dir, DATABASE_URL: database.url, SURFACES: 'none' }, dotenvPath: null });
    const server = await startServer({ config, logger: silentLogger(), surfaces: [] });
    try {
      const url = server.ctx.publicUrl.replace(/\/$/, '');
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      await database.drop(); // terminates the pool's connections; new ones are refused
      const res = await fetch(`${url}/healthz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ live: true, ready: false, status: 'store_unreachable', store: 'postgres' });
      const readyz = await fetch(`${url}/readyz`);
      expect(readyz.status).toBe(503);
      expect(await readyz.json()).toMatchObject({ ready: false, status: 'store_unreachable' });
      const live = await fetch(`${url}/livez`);
      expect(live.status).toBe(200);
      expect(await live.json()).toMatchObject({ live: true });
    } finally {
      await server.shutdown('test');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
