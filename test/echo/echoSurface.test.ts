import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { echoSurface } from '../../actors/surfaces.js';
import { storeOf } from '../../core/store/appStore.js';
import { chartOf, type Chart, type ChartNode } from '../../actors/statecharts/chart.js';
import { loadMachine } from '../../core/machineRegistry.js';
import { adminLogin, startInspectServer, type InspectServer } from '../inspect/support.js';

/**
 * The example surface through the same contract as the four: `palabre serve` in process (real HTTP
 * server, real SQLite file, real WebSocket client) with a surface list holding echo and the
 * inspector. Everything echo brings — its chart, its table, its socket, its health, its drain — is
 * declared in actors/echo/surface.ts and provided by core.
 */

interface Frame {
  type: string;
  text?: string;
  total?: number;
  code?: string;
  message?: string;
}

/** A WebSocket client that queues the frames it receives, in order. */
async function connect(url: string): Promise<{ ws: WebSocket; next(): Promise<Frame>; closed: Promise<{ code: number; reason: string }> }> {
  const ws = new WebSocket(url);
  const queue: Frame[] = [];
  const waiting: Array<(f: Frame) => void> = [];
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as Frame;
    const w = waiting.shift();
    if (w) w(frame);
    else queue.push(frame);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, next: () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((resolve) => waiting.push(resolve))), closed };
}

function statesOf(chart: Chart): ChartNode[] {
  const out: ChartNode[] = [];
  const walk = (n: ChartNode): void => {
    out.push(n);
    for (const c of n.children) walk(c);
  };
  walk(chart.root);
  return out.slice(1);
}

describe('the echo surface, started through the surface contract', () => {
  let srv: InspectServer;
  let wsUrl: string;

  beforeAll(async () => {
    srv = await startInspectServer([echoSurface, () => import('../../actors/inspect/surface.js').then((m) => m.inspectSurface)]);
    wsUrl = `${srv.url.replace('http', 'ws')}/echo/ws`;
  });
  afterAll(async () => {
    await srv?.close();
  });

  it('its migration ran on the store: the echo_counts table exists, version 900 is recorded', async () => {
    const store = storeOf(srv.server.ctx);
    const versions = await store.db.withTables<{ schema_migrations: { version: number } }>().selectFrom('schema_migrations').select('version').execute();
    expect(versions.map((v) => Number(v.version))).toContain(900);
    const rows = await store.db.withTables<{ echo_counts: { name: string; count: number } }>().selectFrom('echo_counts').selectAll().execute();
    expect(rows).toEqual([]);
  });

  it('echoes a line with the stored total; a bad frame gets a clear error and changes nothing', async () => {
    const client = await connect(wsUrl);
    client.ws.send(JSON.stringify({ type: 'say', text: 'bonjour' }));
    expect(await client.next()).toEqual({ type: 'echo', text: 'bonjour', total: 1 });

    client.ws.send('not json');
    expect(await client.next()).toMatchObject({ type: 'error', code: 'bad_frame', message: expect.stringMatching(/not JSON.*"say"/) });
    client.ws.send(JSON.stringify({ type: 'say', text: '' }));
    expect(await client.next()).toMatchObject({ type: 'error', code: 'bad_frame', message: expect.stringMatching(/text: text is empty/) });
    client.ws.send(JSON.stringify({ type: 'shout', text: 'x' }));
    expect(await client.next()).toMatchObject({ type: 'error', code: 'bad_frame' });

    // Nothing changed: the stored total and the conversation's count are what one echo left.
    const health = (await (await fetch(`${srv.url}/healthz`)).json()) as { surfaces: Record<string, unknown>; actors: Record<string, number> };
    expect(health.surfaces.echo).toEqual({ conversations: 1, echoes: 1, total: 1 });
    expect(health.actors.echo).toBe(1);

    client.ws.send(JSON.stringify({ type: 'say', text: 'encore' }));
    expect(await client.next()).toEqual({ type: 'echo', text: 'encore', total: 2 });
    client.ws.close();
    await client.closed;
  });

  it('a WebSocket path no surface declared is refused 404', async () => {
    const ws = new WebSocket(`${srv.url.replace('http', 'ws')}/nowhere`);
    const status = await new Promise<number>((resolve) => ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(404);
  });

  it('the machine registry and the inspector list the echo chart, every state described', async () => {
    const machines = srv.server.ctx.machines!;
    expect(Object.keys(machines)).toEqual(expect.arrayContaining(['root', 'echo']));
    const chart = chartOf('echo', (await loadMachine(machines, 'echo'))!);
    const states = statesOf(chart);
    expect(states.map((s) => s.key).sort()).toEqual(['closed', 'counting', 'listening']);
    for (const s of states) expect(s.description, s.id).toMatch(/\S/);
    const cookie = await adminLogin(srv.url);
    const svg = await fetch(`${srv.url}/inspect/charts/echo.svg`, { headers: { cookie } });
    expect(svg.status).toBe(200);
    expect(await svg.text()).toContain('listening');
  });

  it('the drain closes every echo conversation (1001) and stops its actor', async () => {
    const client = await connect(wsUrl);
    client.ws.send(JSON.stringify({ type: 'say', text: 'avant' }));
    expect(await client.next()).toMatchObject({ type: 'echo', text: 'avant' });
    expect(srv.server.ctx.runtime.countByKind().echo).toBe(1);
    const echoSurfaceRunning = srv.server.surfaces.find((s) => s.name === 'echo')!.running;
    await echoSurfaceRunning.stop({ deadlineAt: Date.now() + 5000 });
    expect(await client.closed).toEqual({ code: 1001, reason: 'server shutting down' });
    expect(srv.server.ctx.runtime.countByKind().echo ?? 0).toBe(0);
    // A new conversation is refused while drained.
    const late = new WebSocket(wsUrl);
    const status = await new Promise<number>((resolve) => late.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(503);
  });
});
