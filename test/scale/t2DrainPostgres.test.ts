import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { createAuth } from '../../core/auth.js';
import { silentLogger } from '../../core/log.js';
import type { RunningServer } from '../../core/server.js';
import { startServer } from '../../actors/serve.js';
import { correctionsSurface } from '../../actors/corrections/surface.js';
import { t2Surface } from '../../actors/t2/surface.js';
import { BEARER_PROTOCOL_PREFIX, T2_PROTOCOL } from '../../transports/ws/t2liveFrames.js';
import { requirePostgres } from '../support/requires.js';
import { createTestDatabase } from '../support/stores.js';
import { LiveClient } from '../t2/support.js';

/**
 * A stop of `palabre serve` on Postgres with live T2 sessions: each one is graded, sends its
 * report, then closes 1000 — the close waits for the candidate's claim to be deleted in Postgres,
 * and the drain waits for that close, so the shutdown's 1001 never overtakes it (the page would
 * show « Connexion perdue » although it has its report).
 */
const pgReq = requirePostgres();
const SESSIONS = 20;

describe.skipIf(!pgReq.ok)(`T2 drain on Postgres (${pgReq.reason})`, () => {
  let dir: string;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: RunningServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-t2-drain-pg-'));
    database = await createTestDatabase(pgReq.path);
    const config = loadPalabreConfig({
      env: {
        PORT: '0', MQTT_EMBEDDED_PORT: '0', DATA_DIR: dir, DATABASE_URL: database.url, INSTANCE_ID: 'drain',
        JWT_SECRET: 'drain-jwt-secret-0123456789abcdef', SESSION_SECRET: 'drain-session-secret-0123456789',
        CORRECTION_PROVIDER: 'offline', GRAMMALECTE: 'off', SURFACES: 'corrections,t2', SHUTDOWN_TIMEOUT_MS: '60000',
      },
      dotenvPath: null,
    });
    server = await startServer({ config, logger: silentLogger(), surfaces: [async () => correctionsSurface, async () => t2Surface] });
  }, 120_000);

  afterAll(async () => {
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`${String(SESSIONS)} live sessions drained: every one sends its report, then closes 1000`, async () => {
    const base = server.ctx.publicUrl.replace(/\/$/, '').replace(/^http/, 'ws');
    const auth = createAuth(server.ctx.config);
    const clients = await Promise.all(Array.from({ length: SESSIONS }, async (_, i) => {
      const token = await auth.mintToken({ sub: `cand-drain-${i}`, plan: 'premium' });
      const c = new LiveClient(new WebSocket(`${base}/t2/live?sujet=club-de-sport&mode=text`, [T2_PROTOCOL, `${BEARER_PROTOCOL_PREFIX}${token}`]));
      await c.opened;
      await c.until(() => c.states().includes('listening'), `session ${i} listening`, 30_000);
      c.send({ type: 'text', text: 'Bonjour, quels sont les horaires du club le samedi ?' });
      await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final === true), `session ${i} reply`, 30_000);
      return c;
    }));
    expect(await server.shutdown('test')).toEqual({ forced: false });
    const closes = await Promise.all(clients.map((c) => c.closed));
    const got = clients.map((c, i) => `${String(closes[i]!.code)} ${c.json.some((m) => m.type === 'report') ? 'report' : 'no report'}`);
    expect(got).toEqual(Array.from({ length: SESSIONS }, () => '1000 report'));
    for (const c of clients) expect(c.states().at(-1)).toBe('ended');
  }, 180_000);
});
