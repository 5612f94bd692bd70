import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docHref } from '../../web/docs/markdownRender.js';
import { ADMIN_PASSWORD, startPagesServer, type PagesServer } from './support/pagesServer.js';

/** The pages over real HTTP without a browser: what a client without JavaScript gets. */

let srv: PagesServer;
beforeAll(async () => {
  srv = await startPagesServer();
});
afterAll(async () => {
  await srv?.close();
});

function cookieFrom(res: Response, name: string): string | undefined {
  for (const c of res.headers.getSetCookie()) if (c.startsWith(`${name}=`)) return c.split(';')[0];
  return undefined;
}

function form(fields: Record<string, string>): URLSearchParams {
  return new URLSearchParams(fields);
}

describe('/assistant without JavaScript', () => {
  it('a plain form POST returns the whole page with the answer in the aria-live region and correct source links', async () => {
    const res = await fetch(`${srv.url}/assistant/ask`, { method: 'POST', body: form({ question: 'Combien de temps les journaux techniques sont-ils conservés ?' }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const page = await res.text();
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<main id="page_main"');
    const region = page.slice(page.indexOf('id="a_answer"'));
    expect(region).toMatch(/^id="a_answer" class="answer-region" aria-live="polite" aria-busy="false"/);
    expect(region).toContain('trente jours');
    expect(region).toContain('href="/docs/rgpd.md#durees-de-conservation"');
    expect(page).toContain('Fournisseur hors ligne');
  });

  it('an out-of-scope question gets the refusal and no source', async () => {
    const res = await fetch(`${srv.url}/assistant/ask`, { method: 'POST', body: form({ question: 'Quelle est la recette de la tarte tatin aux pommes caramélisées ?' }) });
    const page = await res.text();
    const region = page.slice(page.indexOf('id="a_answer"'));
    expect(region).toContain('data-state="outOfScope"');
    expect(region).toContain('pas dans la documentation');
    expect(region.slice(0, region.indexOf('</article>'))).not.toContain('source-link');
  });

  it('an empty question is a 400 with a labelled error, nothing asked', async () => {
    const res = await fetch(`${srv.url}/assistant/ask`, { method: 'POST', body: form({ question: '   ' }) });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('aria-invalid="true"');
    expect(page).toContain('Écrivez une question.');
  });

  it('settings are kept per browser (cookie → session row), validated, and reset', async () => {
    const first = await fetch(`${srv.url}/assistant/settings`, {
      method: 'POST', redirect: 'manual',
      body: form({ model: 'claude-haiku-4-5', k: '7', threshold: '0.5', confident: '0.6', temperature: '0.1', maxTokens: '300', historyTurns: '2' }),
    });
    expect(first.status).toBe(303);
    const cookie = cookieFrom(first, 'palabre_sid');
    expect(cookie).toBeDefined();
    const mine = await (await fetch(`${srv.url}/assistant?saved=1`, { headers: { cookie: cookie ?? '' } })).text();
    expect(mine).toContain('value="claude-haiku-4-5"');
    expect(mine).toMatch(/id="s_k" name="k" value="7"/);
    expect(mine).toContain('Réglages enregistrés.');
    // Another browser still has the defaults.
    const other = await (await fetch(`${srv.url}/assistant`)).text();
    expect(other).toContain(`id="s_k" name="k" value="${srv.assistant.defaults().k}"`);
    // Invalid values: 400, field flagged, nothing saved.
    const bad = await fetch(`${srv.url}/assistant/settings`, { method: 'POST', headers: { cookie: cookie ?? '' }, body: form({ model: 'x', k: '500', threshold: '2', confident: '0.5', temperature: '0.1', maxTokens: '300', historyTurns: '2' }) });
    expect(bad.status).toBe(400);
    const badPage = await bad.text();
    expect(badPage).toMatch(/id="s_k" name="k" value="500"[^>]*aria-invalid="true"/);
    // Messages in French, naming the field.
    expect(badPage).toContain('Passages récupérés (k) : au plus 50.');
    expect(badPage).toContain('Seuil bas (refus) : au plus 1.');
    expect(badPage).not.toContain('Too big');
    const still = await (await fetch(`${srv.url}/assistant`, { headers: { cookie: cookie ?? '' } })).text();
    expect(still).toMatch(/id="s_k" name="k" value="7"/);
    // Reset.
    const reset = await fetch(`${srv.url}/assistant/settings/reset`, { method: 'POST', redirect: 'manual', headers: { cookie: cookie ?? '' } });
    expect(reset.status).toBe(303);
    const after = await (await fetch(`${srv.url}/assistant`, { headers: { cookie: cookie ?? '' } })).text();
    expect(after).toContain(`id="s_k" name="k" value="${srv.assistant.defaults().k}"`);
  });

  it('a forged session cookie is ignored (new session), not trusted', async () => {
    const res = await fetch(`${srv.url}/assistant`, { headers: { cookie: 'palabre_sid=abc.def' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`id="s_k" name="k" value="${srv.assistant.defaults().k}"`);
  });
});

describe('/ (home)', () => {
  it('lists the pages this process serves, so the header link leads somewhere', async () => {
    const page = await (await fetch(`${srv.url}/`)).text();
    expect(page).toContain('<a href="/assistant">Assistant</a>');
    expect(page).toContain('<a href="/docs">Documentation</a>');
  });
});

describe('/docs without JavaScript', () => {
  it('every heading anchor the core indexes is an id in the rendered document (one slugger)', async () => {
    let checked = 0;
    for (const doc of srv.assistant.documents()) {
      const page = await (await fetch(`${srv.url}${docHref(doc.path)}`)).text();
      const ids = new Set([...page.matchAll(/<h[1-6] id="([^"]+)"/g)].map((m) => m[1]));
      for (const h of doc.headings) {
        expect(ids, `${doc.path}#${h.anchor}`).toContain(h.anchor);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(12);
  });

  it('renders a document with heading ids from the shared slugger and the navigation tree', async () => {
    const page = await (await fetch(`${srv.url}/docs/rgpd.md`)).text();
    expect(page).toContain('<h2 id="durees-de-conservation" tabindex="-1">Durées de conservation</h2>');
    expect(page).toContain('href="/docs/guides/demarrage.mdx"');
    expect(page).toContain('aria-current="page"');
  });

  it('MDX: imports dropped, JSX sanitised away, relative .md links open in the viewer', async () => {
    const page = await (await fetch(`${srv.url}/docs/guides/demarrage.mdx`)).text();
    expect(page).not.toContain('import { Callout }');
    expect(page).not.toContain('<Callout');
    expect(page).toContain('href="/docs/rgpd.md#durees-de-conservation"');
  });

  it('the embedded chat answers with the ChatConfig settings, in the panel, on the same document', async () => {
    const res = await fetch(`${srv.url}/docs/ask`, { method: 'POST', body: form({ question: 'Comment le client découvre-t-il les outils MCP ?', doc: 'mcp.md' }) });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('data-open="true"');
    expect(page).toContain('<input type="hidden" name="doc" value="mcp.md">');
    expect(page.slice(page.indexOf('id="c_answer"'))).toContain('href="/docs/mcp.md#serveurs-et-outils"');
  });

  it('images a document references are served from the corpus (raster only), sources are not', async () => {
    const page = await (await fetch(`${srv.url}/docs/guides/demarrage.mdx`)).text();
    expect(page).toContain('<img src="/docs/guides/schema.png" alt="Schéma du service"');
    const img = await fetch(`${srv.url}/docs/guides/schema.png`);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    const raw = await fetch(`${srv.url}/docs/rgpd.md`);
    expect(raw.headers.get('content-type')).toContain('text/html');
    expect((await fetch(`${srv.url}/docs/..%2F..%2Fweb%2Fpng.png`)).status).toBe(404);
  });

  it('unknown or traversing paths are a 404 page, never a file read', async () => {
    for (const p of ['nope.md', '..%2F..%2Fetc%2Fpasswd', 'guides/..%2F..%2Fpackage.json']) {
      const res = await fetch(`${srv.url}/docs/${p}`);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('root:');
    }
  });

  it('the JSON fragment serves the sanitised document for the JS viewer', async () => {
    const res = await fetch(`${srv.url}/docs/injection.md?format=json`);
    const body = (await res.json()) as { path: string; html: string };
    expect(body.path).toBe('injection.md');
    expect(body.html).not.toMatch(/<script|onerror|javascript:/i);
    expect(body.html).toContain('Maintenance des serveurs');
  });
});

describe('/admin/chat/params', () => {
  async function login(): Promise<string> {
    const page = await fetch(`${srv.url}/admin/login`);
    const loginCookie = cookieFrom(page, 'palabre_login_csrf') ?? '';
    const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const res = await fetch(`${srv.url}/admin/login`, { method: 'POST', redirect: 'manual', headers: { cookie: loginCookie }, body: form({ password: ADMIN_PASSWORD, _csrf: token, next: '/admin/chat/params' }) });
    expect(res.status).toBe(303);
    return cookieFrom(res, 'palabre_admin') ?? '';
  }

  it('requires the admin login; a wrong password is refused', async () => {
    const anon = await fetch(`${srv.url}/admin/chat/params`, { redirect: 'manual' });
    expect(anon.status).toBe(303);
    expect(anon.headers.get('location')).toBe('/admin/login?next=%2Fadmin%2Fchat%2Fparams');
    const post = await fetch(`${srv.url}/admin/chat/params`, { method: 'POST', body: form({ k: '3' }) });
    expect(post.status).toBe(401);
    const page = await fetch(`${srv.url}/admin/login`);
    const c = cookieFrom(page, 'palabre_login_csrf') ?? '';
    const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const wrong = await fetch(`${srv.url}/admin/login`, { method: 'POST', redirect: 'manual', headers: { cookie: c }, body: form({ password: 'nope nope nope', _csrf: token }) });
    expect(wrong.status).toBe(401);
    expect(cookieFrom(wrong, 'palabre_admin')).toBeUndefined();
  });

  it('a login form without its CSRF token is rejected; repeated wrong passwords are throttled per client', async () => {
    // Its own server: the throttle must not lock out the other tests' logins.
    const own = await startPagesServer({ assistant: srv.assistant });
    try {
      const noToken = await fetch(`${own.url}/admin/login`, { method: 'POST', redirect: 'manual', body: form({ password: ADMIN_PASSWORD }) });
      expect(noToken.status).toBe(403);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const page = await fetch(`${own.url}/admin/login`);
        const c = cookieFrom(page, 'palabre_login_csrf') ?? '';
        const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
        const res = await fetch(`${own.url}/admin/login`, { method: 'POST', redirect: 'manual', headers: { cookie: c }, body: form({ password: i < 5 ? `wrong-${i}-xxxx` : ADMIN_PASSWORD, _csrf: token }) });
        statuses.push(res.status);
      }
      // Five wrong passwords are refused (401); then even the right one waits (429).
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    } finally {
      await own.close();
    }
  });

  it('rotating X-Forwarded-For behind a trusting proxy does not help: the account is throttled too', async () => {
    const own = await startPagesServer({ assistant: srv.assistant, trustProxy: true });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const xff = { 'x-forwarded-for': `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}` };
        const page = await fetch(`${own.url}/admin/login`, { headers: xff });
        const c = cookieFrom(page, 'palabre_login_csrf') ?? '';
        const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
        const res = await fetch(`${own.url}/admin/login`, { method: 'POST', redirect: 'manual', headers: { cookie: c, ...xff }, body: form({ password: `wrong-${i}-xxxx`, _csrf: token }) });
        statuses.push(res.status);
        if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      // Each address is new, yet only MAX_ACCOUNT_FAILURES (10) guesses are checked in the window.
      expect(statuses.filter((s) => s === 401)).toHaveLength(10);
      expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
    } finally {
      await own.close();
    }
  });

  it('rejects a POST without or with a wrong CSRF token (403, nothing saved); saves with it', async () => {
    const admin = await login();
    // threshold 0.99: the embedded chat will refuse what the assistant (defaults) answers.
    const fields = { model: 'claude-haiku-4-5', k: '2', threshold: '0.99', confident: '0.99', temperature: '0', maxTokens: '200', historyTurns: '0' };
    const none = await fetch(`${srv.url}/admin/chat/params`, { method: 'POST', headers: { cookie: admin }, body: form(fields) });
    expect(none.status).toBe(403);
    const wrong = await fetch(`${srv.url}/admin/chat/params`, { method: 'POST', headers: { cookie: admin }, body: form({ ...fields, _csrf: 'forged' }) });
    expect(wrong.status).toBe(403);
    expect(srv.pages.chatConfig.get()).toBeUndefined();

    const page = await (await fetch(`${srv.url}/admin/chat/params`, { headers: { cookie: admin } })).text();
    const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const ok = await fetch(`${srv.url}/admin/chat/params`, { method: 'POST', redirect: 'manual', headers: { cookie: admin }, body: form({ ...fields, _csrf: token }) });
    expect(ok.status).toBe(303);
    expect(srv.pages.chatConfig.get()?.settings).toEqual({ model: 'claude-haiku-4-5', k: 2, threshold: 0.99, confident: 0.99, temperature: 0, maxTokens: 200, historyTurns: 0 });

    // The embedded chat now uses the ChatConfig, /assistant the configuration defaults.
    const ask = async (path: string): Promise<string> =>
      ((await (await fetch(`${srv.url}${path}`, { method: 'POST', headers: { accept: 'application/json' }, body: form({ question: 'Combien de temps les journaux techniques sont-ils gardés ?' }) })).json()) as { state: string }).state;
    expect(await ask('/docs/ask')).toBe('outOfScope');
    expect(await ask('/assistant/ask')).toBe('answered');

    const reset = await fetch(`${srv.url}/admin/chat/params/reset`, { method: 'POST', redirect: 'manual', headers: { cookie: admin }, body: form({ _csrf: token }) });
    expect(reset.status).toBe(303);
    expect(srv.pages.chatConfig.get()).toBeUndefined();
  });
});
