import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { setup, assign } from 'xstate';
import { adminLogin, startInspectServer, type InspectServer } from './support.js';

const SECRET_KEY = 'sk-test-inspector-0123456789abcdef';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5kaWRhdGUtNDIifQ.c2lnbmF0dXJlLWZvci10ZXN0';

const device = setup({
  types: { context: {} as { apiKey: string; token: string; turns: number }, events: {} as { type: 'hear'; text: string; audio?: string } | { type: 'done' } },
}).createMachine({
  id: 'device',
  context: { apiKey: SECRET_KEY, token: JWT, turns: 0 },
  initial: 'idle',
  states: {
    idle: { on: { hear: { target: 'responding', actions: assign({ turns: ({ context }) => context.turns + 1 }) } } },
    responding: { on: { done: 'idle' } },
  },
});

function collect(ws: WebSocket): { messages: Array<Record<string, unknown>>; raw: string[]; next(pred: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> } {
  const messages: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const waiters: Array<{ pred: (m: Record<string, unknown>) => boolean; resolve: (m: Record<string, unknown>) => void }> = [];
  ws.on('message', (data) => {
    raw.push(data.toString());
    const m = JSON.parse(data.toString()) as Record<string, unknown>;
    messages.push(m);
    for (const w of [...waiters]) if (w.pred(m)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(m); }
  });
  return {
    messages,
    raw,
    next: (pred) => {
      const found = messages.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ pred, resolve }));
    },
  };
}

function open(url: string, headers: Record<string, string>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace('http', 'ws') + '/inspect/ws', { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

describe('/inspect over HTTP and WebSocket', () => {
  let srv: InspectServer;
  let cookie: string;
  beforeAll(async () => {
    srv = await startInspectServer([() => import('../../actors/inspect/surface.js').then((m) => m.inspectSurface)]);
    cookie = await adminLogin(srv.url);
  });
  afterAll(async () => {
    await srv?.close();
  });

  it('refuses the page and the socket without an admin session, and foreign origins', async () => {
    const page = await fetch(`${srv.url}/inspect`, { redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toMatch(/^\/admin\/login/);
    await expect(open(srv.url, {})).rejects.toThrow(/401/);
    await expect(open(srv.url, { cookie, origin: 'http://evil.example' })).rejects.toThrow(/403/);
  });

  it('serves the page and the chart SVG to the admin', async () => {
    const page = await fetch(`${srv.url}/inspect`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('Inspecteur de statecharts');
    expect(text).toContain('/static/inspect.js');
    const svg = await fetch(`${srv.url}/inspect/charts/llmCall.svg`, { headers: { cookie } });
    expect(svg.headers.get('content-type')).toMatch(/image\/svg\+xml/);
    expect(await svg.text()).toContain('data-state-id="llmCall.attempting"');
    expect((await fetch(`${srv.url}/inspect/charts/nope.svg`, { headers: { cookie } })).status).toBe(404);
  });

  it('streams a live actor, its state changes, and no secret', async () => {
    const ws = await open(srv.url, { cookie, origin: srv.url });
    const inbox = collect(ws);
    await inbox.next((m) => m.type === 'conversations');
    const ref = srv.server.ctx.runtime.start('llmCall', 'device:kitchen', device);
    const listed = await inbox.next((m) => m.type === 'conversations' && JSON.stringify(m).includes('device:kitchen'));
    expect(JSON.stringify(listed)).toContain('"kind":"llmCall"');
    ref.send({ type: 'hear', text: 'bonjour', audio: Buffer.alloc(2048, 1).toString('base64') });
    const snap = await inbox.next((m) => m.type === 'record' && (m.record as { type: string; value?: unknown }).type === 'snapshot' && (m.record as { value?: unknown }).value === 'responding');
    expect(snap.record).toMatchObject({ conversation: 'device:kitchen', actor: 'device:kitchen' });
    ws.send(JSON.stringify({ type: 'history', systemId: 'device:kitchen' }));
    const history = await inbox.next((m) => m.type === 'history');
    expect((history.records as unknown[]).length).toBeGreaterThan(0);
    ws.send('not json');
    const err = await inbox.next((m) => m.type === 'error');
    expect(err.message).toMatch(/history/);
    const all = inbox.raw.join('\n');
    expect(all).not.toContain(SECRET_KEY);
    expect(all).not.toContain(JWT);
    expect(all).not.toContain(Buffer.alloc(2048, 1).toString('base64').slice(0, 40));
    srv.server.ctx.runtime.stop('device:kitchen');
    await inbox.next((m) => m.type === 'conversations' && !JSON.stringify(m).includes('device:kitchen'));
    ws.close();
  });
});
