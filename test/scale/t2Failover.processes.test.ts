import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { createAuth } from '../../core/auth.js';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { freePort, spawnServe, type ServeProcess } from '../serve/spawnServe.js';
import { requirePostgres } from '../support/requires.js';
import { createTestDatabase } from '../support/stores.js';
import { LiveClient } from '../t2/support.js';

/**
 * A live T2 session survives the death of its process: two real `palabre serve` processes on one
 * Postgres; a text session with two candidate turns on `a`; `a` gets `kill -9` (or SIGTERM); the
 * candidate reconnects to `b` with `resume=1` as the page does (4503 while `a`'s claims live) and
 * is taken over: transcript back, one more turn, end → one graded row with the three candidate
 * turns, not `interrupted`. The claims' lifetime is real time here (6 s): the reconnect loop
 * waits on the takeover, not on a clock.
 */
const pgReq = requirePostgres();
const SECRET = 'failover-jwt-secret-0123456789abcdef';
const QUESTIONS = ['Bonjour, quels sont les horaires du club le samedi ?', 'Combien coûte l’abonnement pour les étudiants ?', 'Est-ce qu’il y a des cours de natation ?'];

describe.skipIf(!pgReq.ok)(`T2 failover between two processes on one Postgres (${pgReq.reason})`, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  const serve = async (name: string, dir: string, url: string): Promise<{ proc: ServeProcess; ws: string }> => {
    const port = await freePort();
    const proc = spawnServe({
      PORT: String(port), MQTT_EMBEDDED_PORT: String(await freePort()), DATA_DIR: join(dir, name), T2_RECORDINGS_DIR: join(dir, 'audio'), INSTANCE_ID: name,
      DATABASE_URL: url, JWT_SECRET: SECRET, SESSION_SECRET: 'failover-session-secret-0123456789', CORRECTION_PROVIDER: 'offline', GRAMMALECTE: 'off',
      SURFACES: 'corrections,t2', T2_LEASE_TTL_MS: '6000', T2_RESUME_GRACE_MS: '30000', SHUTDOWN_TIMEOUT_MS: '20000',
    });
    cleanups.push(async () => {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
      await proc.exited;
    });
    await proc.waitFor(/is serving/, 90_000);
    // Ready as a load balancer sees it (/readyz: the claims renewed, not fenced).
    for (let i = 0; i < 300 && !(await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    return { proc, ws: `ws://127.0.0.1:${port}` };
  };
  const open = async (ws: string, sub: string, resume: boolean): Promise<LiveClient> => {
    const token = await createAuth(loadPalabreConfig({ env: { JWT_SECRET: SECRET }, dotenvPath: null })).mintToken({ sub, plan: 'premium' });
    const c = new LiveClient(new WebSocket(`${ws}/t2/live?sujet=club-de-sport&mode=text${resume ? '&resume=1' : ''}`, ['palabre.t2', `palabre.bearer.${token}`]));
    await c.opened;
    return c;
  };
  const ask = async (c: LiveClient, text: string): Promise<void> => {
    const n = c.json.filter((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final === true).length;
    c.send({ type: 'text', text });
    await c.until(() => c.json.filter((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final === true).length > n, `a reply to « ${text} »`, 30_000);
  };

  for (const how of ['SIGKILL', 'SIGTERM'] as const) {
    it(`${how === 'SIGKILL' ? 'kill -9' : 'SIGTERM'} of the holder: the reconnect to the other process takes the session over and it ends graded with every turn`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'palabre-t2-failover-proc-'));
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      const database = await createTestDatabase(pgReq.path);
      cleanups.push(() => database.drop());
      const [a, b] = await Promise.all([serve('a', dir, database.url), serve('b', dir, database.url)]);
      const c = await open(a.ws, 'cand-proc', false);
      await c.until(() => c.states().includes('listening') || c.closeCode !== undefined, 'listening on a', 30_000);
      expect(c.json.filter((m) => m.type === 'error')).toEqual([]);
      await ask(c, QUESTIONS[0]!);
      await ask(c, QUESTIONS[1]!);

      // The reply's own write lands one database round trip after the client saw it: the kill
      // comes once it is stored (what a kill may take is documented in docs/scaling.md).
      const db = new pg.Client({ connectionString: database.url });
      await db.connect();
      cleanups.push(() => db.end());
      const stored = async (): Promise<number> => ((await db.query<{ transcript: string }>('SELECT transcript FROM t2_sessions')).rows.map((x) => (JSON.parse(x.transcript) as unknown[]).length)[0] ?? 0);
      for (let i = 0; i < 100 && (await stored()) < 4; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      a.proc.child.kill(how);
      const { code } = await c.closed;
      expect(how === 'SIGKILL' ? [1006] : [4503]).toContain(code);
      // The page's reconnect loop: refused 4503 while `a`'s claims live (kill -9), then resumed.
      let r: LiveClient | undefined;
      for (let attempt = 0; attempt < 60 && !r; attempt++) {
        const k = await open(b.ws, 'cand-proc', true);
        await k.until(() => k.find('resume') !== undefined || k.closeCode !== undefined, 'resume or a close', 30_000);
        if (k.find('resume')) r = k;
        else {
          expect(k.closeCode).toBe(4503);
          await k.closed;
          await new Promise((resolve) => setTimeout(resolve, 250)); // the page's back-off
        }
      }
      expect(r).toBeDefined();
      expect((r!.find('resume')!.transcript as Array<{ speaker: string }>).map((t) => t.speaker)).toEqual(['candidate', 'interlocutor', 'candidate', 'interlocutor']);
      await ask(r!, QUESTIONS[2]!);
      r!.send({ type: 'end' });
      await r!.until(() => r!.find('report') !== undefined, 'the report', 60_000);
      expect((await r!.closed).code).toBe(1000);

      const rows = (await db.query<{ instance_id: string; status: string; end_reason: string; transcript: string }>('SELECT instance_id, status, end_reason, transcript FROM t2_sessions')).rows;
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ instance_id: 'b', status: 'graded', end_reason: 'candidate' });
      const turns = JSON.parse(rows[0]!.transcript) as Array<{ speaker: string; text: string }>;
      expect(turns.filter((t) => t.speaker === 'candidate').map((t) => t.text)).toEqual(QUESTIONS);
    }, 240_000);
  }
});
