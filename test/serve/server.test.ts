import express from 'express';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DestinationStream } from 'pino';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { createLogger } from '../../core/log.js';
import { StartupError } from '../../core/server.js';
import { startServer } from '../../actors/serve.js';
import type { Surface } from '../../core/surfaceContract.js';

const dir = mkdtempSync(join(tmpdir(), 'palabre-server-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function setup(name: string, extra: Record<string, string> = {}) {
  const lines: string[] = [];
  const stream: DestinationStream = { write: (s: string) => void lines.push(s) };
  const config = loadPalabreConfig({ env: { PORT: '0', MQTT_EMBEDDED_PORT: '0', DATA_DIR: join(dir, name), ...extra }, dotenvPath: null });
  return { config, logger: createLogger({ destination: stream, level: 'debug' }), logs: () => lines.join('') };
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

describe('startServer (in process, with test surfaces)', () => {
  it('while surfaces start: /healthz is live and says what warms up, /readyz and other routes 503; then serves their routes, URLs and health', async () => {
    const { config, logger } = setup('surfaces');
    let during: { health: number; body: unknown; ready: number; other: number; retryAfter: string | null } | undefined;
    const surface: Surface = {
      name: 'demo',
      async start(ctx) {
        const health = await fetch(`${ctx.publicUrl}/healthz`);
        const other = await fetch(`${ctx.publicUrl}/api/anything`);
        await other.arrayBuffer();
        during = { health: health.status, body: await health.json(), ready: (await fetch(`${ctx.publicUrl}/readyz`)).status, other: other.status, retryAfter: other.headers.get('retry-after') };
        const routes = express.Router();
        routes.get('/api/demo', (_req, res) => { res.json({ ok: true, mqtt: ctx.mqtt.url.startsWith('mqtt://') }); });
        routes.get('/api/boom', () => { throw new Error('secret internals at /srv/app.ts:12'); });
        return { routes, stop: async () => {}, health: () => ({ sessions: 3 }), urls: { page: '/demo' } };
      },
    };
    const server = await startServer({ config, logger, surfaces: [async () => surface] });
    try {
      expect(during).toMatchObject({ health: 200, body: { status: 'warming', ready: false, warming: ['demo'] }, ready: 503, other: 503, retryAfter: '5' });
      const base = server.ctx.publicUrl;
      expect(server.urls.demo).toEqual({ page: `${base}/demo` });
      expect(await (await fetch(`${base}/api/demo`)).json()).toEqual({ ok: true, mqtt: true });
      const health = (await (await fetch(`${base}/healthz`)).json()) as { surfaces: Record<string, unknown> };
      expect(health.surfaces.demo).toEqual({ sessions: 3 });
      // A thrown error becomes a JSON 500 with no message, no stack; the log has the detail.
      const boom = await fetch(`${base}/api/boom`);
      expect(boom.status).toBe(500);
      const text = await boom.text();
      expect(JSON.parse(text)).toEqual({ error: 'Internal Server Error' });
      expect(text).not.toContain('secret internals');
      expect(server.timings).toHaveProperty('surfaces.demo');
      expect(await (await fetch(`${base}/readyz`)).json()).toMatchObject({ ready: true, status: 'ok', store: 'sqlite' });
    } finally {
      expect(await server.shutdown('test')).toEqual({ forced: false });
    }
  });

  it('drains on shutdown: a request in flight completes, new ones get 503 + Retry-After, /healthz says ready: false', async () => {
    const { config, logger, logs } = setup('drain');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const inHandler = new Promise<void>((resolve) => (arrived = resolve));
    const surface: Surface = {
      name: 'slow',
      async start() {
        const routes = express.Router();
        routes.post('/api/slow', async (_req, res) => {
          arrived();
          await held;
          res.json({ saved: true });
        });
        routes.get('/api/demo', (_req, res) => { res.json({ ok: true }); });
        return { routes, stop: async () => {} };
      },
    };
    const server = await startServer({ config, logger, surfaces: [async () => surface] });
    const base = server.ctx.publicUrl;
    const slow = fetch(`${base}/api/slow`, { method: 'POST' });
    await inHandler;
    const stopped = server.shutdown('test');
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'stopping', ready: false });
    const refused = await fetch(`${base}/api/demo`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    release();
    const done = await slow;
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ saved: true });
    expect(await stopped).toEqual({ forced: false });
    expect(logs()).toContain('http requests in flight at the stop completed');
  });

  it('refreshes the actors gauge from the runtime at each scrape', async () => {
    const { config, logger } = setup('metrics');
    const server = await startServer({ config, logger, surfaces: [] });
    try {
      const { createMachine } = await import('xstate');
      server.ctx.runtime.start('echo', 'echo-1', createMachine({}));
      server.ctx.runtime.start('echo', 'echo-2', createMachine({}));
      const text = await (await fetch(`${server.ctx.publicUrl}/metrics`)).text();
      expect(text).toContain('palabre_actors{machine="echo"} 2');
      server.ctx.runtime.stop('echo-1');
      const after = await (await fetch(`${server.ctx.publicUrl}/metrics`)).text();
      expect(after).toContain('palabre_actors{machine="echo"} 1');
      const health = (await (await fetch(`${server.ctx.publicUrl}/healthz`)).json()) as { actors: Record<string, number> };
      expect(health.actors).toEqual({ echo: 1 });
    } finally {
      await server.shutdown('test');
    }
  });

  it('closes everything when a surface fails to start, and names it', async () => {
    const { config, logger } = setup('failing');
    let httpPort = 0;
    let brokerPort = 0;
    const failing: Surface = {
      name: 'broken',
      async start(ctx) {
        httpPort = Number(new URL(ctx.publicUrl).port);
        brokerPort = Number(new URL(ctx.mqtt.url).port);
        throw new Error('corpus missing');
      },
    };
    const err = await startServer({ config, logger, surfaces: [async () => failing] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as StartupError).exitCode).toBe(1);
    expect((err as StartupError).message).toContain('the broken surface failed to start: corpus missing');
    expect(await portOpen(httpPort)).toBe(false);
    expect(await portOpen(brokerPort)).toBe(false);
  });

  it('cuts a hanging surface stop at SHUTDOWN_TIMEOUT_MS and reports it as forced', async () => {
    const { config, logger, logs } = setup('hang', { SHUTDOWN_TIMEOUT_MS: '300' });
    const hanging: Surface = { name: 'hangs', start: async () => ({ stop: () => new Promise<void>(() => {}) }) };
    const server = await startServer({ config, logger, surfaces: [async () => hanging] });
    const port = Number(new URL(server.ctx.publicUrl).port);
    const t0 = Date.now();
    expect(await server.shutdown('test')).toEqual({ forced: true });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(await portOpen(port)).toBe(false);
    expect(server.ctx.db.open).toBe(false);
    expect(logs()).toContain('shutdown deadline reached');
  });

  it('stops the engines surfaces share only after every surface has drained, and names a surface whose stop failed', async () => {
    const { config, logger, logs } = setup('engines-order', { SHUTDOWN_TIMEOUT_MS: '5000' });
    const events: string[] = [];
    let releaseSlow: () => void = () => undefined;
    let ownerDrained: () => void = () => undefined;
    const ownerDone = new Promise<void>((resolve) => (ownerDrained = resolve));
    // The engine's owner stops at once; the other surface still grades with it while it drains.
    const owner: Surface = {
      name: 'owner',
      async start(ctx) {
        ctx.engines?.register('checker', async () => void events.push('engine stopped'));
        return {
          stop: async () => {
            events.push('owner drained');
            ownerDrained();
          },
        };
      },
    };
    const user: Surface = {
      name: 'user',
      start: async () => ({
        stop: () => new Promise<void>((resolve) => {
          releaseSlow = () => {
            events.push('user drained');
            resolve();
          };
        }),
      }),
    };
    const broken: Surface = { name: 'broken', start: async () => ({ stop: async () => { throw new Error('disk gone'); } }) };
    const server = await startServer({ config, logger, surfaces: [async () => owner, async () => user, async () => broken] });
    const stopping = server.shutdown('test');
    await ownerDone;
    await new Promise((r) => setImmediate(r));
    // The owner has drained, the user has not: the engine must still run.
    expect(events).toEqual(['owner drained']);
    releaseSlow();
    expect(await stopping).toEqual({ forced: false, failed: ['broken'] });
    expect(events).toEqual(['owner drained', 'user drained', 'engine stopped']);
    expect(logs()).toContain('"failed":["broken"]');
  });

  it('uses an external broker when MQTT_URL is set, and never prints its password', async () => {
    const { config, logger } = setup('external', { MQTT_URL: 'mqtt://user:hunter22@127.0.0.1:1' });
    const server = await startServer({ config, logger, surfaces: [] });
    try {
      expect(server.mqttMode).toBe('external');
      expect(JSON.stringify(server.urls)).not.toContain('hunter22');
      const health = (await (await fetch(`${server.ctx.publicUrl}/healthz`)).json()) as { mqtt: string };
      expect(health.mqtt).toBe('external');
    } finally {
      await server.shutdown('test');
    }
  });

  it('starts only the surfaces SURFACES names, and refuses an unknown name with exit code 2', async () => {
    const startedNames: string[] = [];
    const make = (name: string): Surface => ({ name, start: async () => { startedNames.push(name); return { stop: async () => {} }; } });
    const loaders = [async () => make('alpha'), async () => make('beta')];
    const one = setup('select', { SURFACES: 'beta' });
    const server = await startServer({ config: one.config, logger: one.logger, surfaces: loaders });
    await server.shutdown('test');
    expect(startedNames).toEqual(['beta']);
    expect(server.surfaces.map((s) => s.name)).toEqual(['beta']);

    const none = setup('select-none', { SURFACES: 'none' });
    const bare = await startServer({ config: none.config, logger: none.logger, surfaces: loaders });
    await bare.shutdown('test');
    expect(bare.surfaces).toEqual([]);
    expect(startedNames).toEqual(['beta']);

    const bad = setup('select-bad', { SURFACES: 'beta,gamma' });
    const err = await startServer({ config: bad.config, logger: bad.logger, surfaces: loaders }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as StartupError).exitCode).toBe(2);
    expect((err as StartupError).message).toContain('unknown surface(s) gamma; this build has: alpha, beta');
  });
});
