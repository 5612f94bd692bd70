import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { PROJECT_ROOT } from '../../core/version.js';
import { redactLine } from '../../core/log.js';
import { BEARER_PROTOCOL_PREFIX, T2_PROTOCOL } from '../../transports/ws/t2liveFrames.js';
import { chromiumRequirement, launchChromium } from '../support/browser.js';
import { requireBinary } from '../support/requires.js';
import { freePort } from '../serve/spawnServe.js';
import { LiveClient, startT2, type T2Env } from './support.js';

/**
 * Where the candidate's JWT travels on /t2/live: in the `Sec-WebSocket-Protocol` header
 * (`palabre.t2, palabre.bearer.<JWT>`), which proxies and access logs do not write, rather than
 * in the query string, which they do. The query form still works for older clients. Checked on the
 * socket, from the page in Chromium, and through the HAProxy configuration palabre ships, whose
 * log must hold no token whichever form the client used.
 */
let env: T2Env;
beforeAll(async () => {
  env = await startT2();
  // What HAProxy's health check asks (the full server answers it from core/probes.ts).
  env.app.get('/readyz', (_req, res) => void res.json({ ready: true }));
});
afterAll(async () => {
  await env?.close();
});

/** A text-mode socket with the token as a subprotocol (no token in the URL). */
function bySubprotocol(base: string, token: string, protocols?: string[]): LiveClient {
  const url = `${base}/t2/live?${new URLSearchParams({ sujet: 'club-de-sport', mode: 'text' }).toString()}`;
  return new LiveClient(new WebSocket(url, protocols ?? [T2_PROTOCOL, `${BEARER_PROTOCOL_PREFIX}${token}`]));
}

/** The same with the token in the query (the compatibility form). */
function byQuery(base: string, token: string): LiveClient {
  return new LiveClient(new WebSocket(`${base}/t2/live?${new URLSearchParams({ token, sujet: 'club-de-sport', mode: 'text' }).toString()}`));
}

const listening = (c: LiveClient): Promise<void> => c.until(() => c.states().includes('listening'), 'listening', 20_000);

describe('the T2 token as a WebSocket subprotocol', () => {
  it('a session opens with the token in Sec-WebSocket-Protocol only; the server answers palabre.t2, never the bearer', async () => {
    const token = await env.mint('premium', 'cand-proto');
    const c = bySubprotocol(env.wsUrl, token);
    await c.opened;
    expect(c.ws.protocol).toBe(T2_PROTOCOL);
    await listening(c);
    c.send({ type: 'text', text: 'Bonjour, quels sont vos horaires ?' });
    await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final === true), 'the reply', 20_000);
    c.ws.close();
  }, 30_000);

  it('a bearer subprotocol that is not a valid JWT is refused 4001, even with a valid token in the query', async () => {
    const good = await env.mint('premium', 'cand-proto-bad');
    const c = bySubprotocol(`${env.wsUrl}`, 'not-a-jwt');
    await c.opened;
    expect((await c.closed).code).toBe(4001);
    const both = new LiveClient(new WebSocket(`${env.wsUrl}/t2/live?${new URLSearchParams({ token: good, sujet: 'club-de-sport', mode: 'text' }).toString()}`, [T2_PROTOCOL, `${BEARER_PROTOCOL_PREFIX}forged.jwt.value`]));
    await both.opened;
    expect((await both.closed).code).toBe(4001);
  }, 30_000);

  it('the query form still opens a session (older clients)', async () => {
    const c = byQuery(env.wsUrl, await env.mint('premium', 'cand-query'));
    await c.opened;
    await listening(c);
    c.ws.close();
  }, 30_000);

  it('palabre’s own log lines never carry a token from a /t2/live URL', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5kIn0.c2lnbmF0dXJlLXZhbHVl';
    const line = redactLine(JSON.stringify({ msg: 'request failed', url: `/t2/live?token=${jwt}&sujet=club-de-sport`, header: `palabre.t2, ${BEARER_PROTOCOL_PREFIX}${jwt}` }));
    expect(line).not.toContain(jwt);
    expect(line).not.toContain('c2lnbmF0dXJlLXZhbHVl');
  });
});

describe.skipIf(!chromiumRequirement.ok)(`the T2 page in Chromium carries its token as a subprotocol (${chromiumRequirement.reason})`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium([]);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('the socket the page opens has no token in its URL, and its session runs', async () => {
    const token = await env.mint('premium', 'cand-page-proto');
    const context = await browser.newContext();
    const page = await context.newPage();
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await page.goto(`${env.baseUrl}/t2/sujets/club-de-sport#token=${token}`);
    await page.click('#t2-start-button');
    await page.waitForSelector('#t2-text-form:not([hidden])', { timeout: 20_000 });
    await page.fill('#t2-text', 'Bonjour, quels sont vos horaires ?');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]', { timeout: 20_000 });
    expect(sockets.filter((u) => u.includes('/t2/live'))).toHaveLength(1);
    for (const u of sockets) {
      expect(u).not.toContain('token');
      expect(u).not.toContain(token.split('.')[2]!);
    }
    await context.close();
  }, 60_000);
});

const haproxy = requireBinary('haproxy', 'haproxy');

describe.skipIf(!haproxy.ok)(`through deploy/haproxy.cfg (${haproxy.reason})`, () => {
  let proxy: ChildProcess;
  let out = '';
  let base = '';

  beforeAll(async () => {
    const port = await freePort();
    const upstream = new URL(env.baseUrl).host;
    proxy = spawn(haproxy.path, ['-db', '-f', join(PROJECT_ROOT, 'deploy/haproxy.cfg')], {
      env: { PATH: process.env.PATH ?? '', HAPROXY_BIND: `127.0.0.1:${port}`, PALABRE_A: upstream, PALABRE_B: upstream },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proxy.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    proxy.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    base = `127.0.0.1:${port}`;
    // Up once it forwards (its health checks need a second or two).
    for (let i = 0; ; i++) {
      const ok = await fetch(`http://${base}/readyz`).then((r) => r.status === 200, () => false);
      if (ok) break;
      if (i > 200 || proxy.exitCode !== null) throw new Error(`haproxy did not forward /readyz: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 60_000);

  afterAll(async () => {
    if (proxy && proxy.exitCode === null) {
      const exited = new Promise((r) => proxy.once('exit', r));
      proxy.kill('SIGTERM');
      await exited;
    }
  });

  it('both forms open a session through the proxy, and its log holds neither token', async () => {
    const viaProtocol = await env.mint('premium', 'cand-haproxy-proto');
    const viaQuery = await env.mint('premium', 'cand-haproxy-query');
    const a = bySubprotocol(`ws://${base}`, viaProtocol);
    const b = byQuery(`ws://${base}`, viaQuery);
    await Promise.all([a.opened, b.opened]);
    await Promise.all([listening(a), listening(b)]);
    a.ws.close();
    b.ws.close();
    await Promise.all([a.closed, b.closed]);
    // HAProxy logs a tunnelled request when it ends.
    const deadline = Date.now() + 10_000;
    while ((out.match(/\/t2\/live/g) ?? []).length < 2) {
      if (Date.now() > deadline) throw new Error(`haproxy logged no /t2/live line: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const token of [viaProtocol, viaQuery]) {
      expect(out).not.toContain(token);
      expect(out).not.toContain(token.split('.')[2]!);
    }
    expect(out).not.toContain('token=');
    // The shipped configuration says so too.
    expect(readFileSync(join(PROJECT_ROOT, 'deploy/haproxy.cfg'), 'utf8')).not.toMatch(/^\s*option httplog/m);
  }, 60_000);
});
