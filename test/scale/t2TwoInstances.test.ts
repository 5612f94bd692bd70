import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { createAuth } from '../../core/auth.js';
import { silentLogger } from '../../core/log.js';
import type { RunningServer } from '../../core/server.js';
import { startServer } from '../../actors/serve.js';
import { correctionsSurface } from '../../actors/corrections/surface.js';
import { createT2Surface, t2Surface } from '../../actors/t2/surface.js';
import type { Store } from '../../core/store/sqlStore.js';
import { storeOf } from '../../core/store/appStore.js';
import { SessionStore } from '../../actors/t2/sessionStore.js';
import { requirePostgres } from '../support/requires.js';
import { createTestDatabase } from '../support/stores.js';
import { LiveClient } from '../t2/support.js';

/**
 * T2 on two `palabre serve` instances (in process, real sockets) on one Postgres: one live session
 * per candidate holds across them (the second is refused 4409 by the other instance), the
 * sessions and reports written through one are read through the other, with the instance that ran
 * them on the row; a live row of an instance that is gone is closed and graded by a running one.
 */
const pgReq = requirePostgres();

describe.skipIf(!pgReq.ok)(`T2 on two instances, one Postgres (${pgReq.reason})`, () => {
  let dir: string;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const servers: RunningServer[] = [];
  let urls: [string, string];
  const token = (sub: string): Promise<string> => createAuth(servers[0]!.ctx.config).mintToken({ sub, plan: 'premium' });
  const open = async (base: string, sub: string): Promise<LiveClient> => {
    const c = new LiveClient(new WebSocket(`${base.replace(/^http/, 'ws')}/t2/live?${new URLSearchParams({ token: await token(sub), sujet: 'club-de-sport', mode: 'text' }).toString()}`));
    await c.opened;
    return c;
  };
  const sessionsOf = async (base: string, sub: string): Promise<Array<{ id: string; status: string; endReason: string | null }>> => {
    const res = await fetch(`${base}/api/t2/sessions`, { headers: { authorization: `Bearer ${await token(sub)}` } });
    return ((await res.json()) as { sessions: Array<{ id: string; status: string; endReason: string | null }> }).sessions;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-t2-two-'));
    database = await createTestDatabase(pgReq.path);
    for (const name of ['a', 'b']) {
      const config = loadPalabreConfig({
        env: {
          PORT: '0', MQTT_EMBEDDED_PORT: '0', DATA_DIR: join(dir, name), T2_RECORDINGS_DIR: join(dir, 'shared-audio'), DATABASE_URL: database.url, INSTANCE_ID: name,
          JWT_SECRET: 'shared-jwt-secret-0123456789', SESSION_SECRET: 'shared-session-secret-0123456789',
          CORRECTION_PROVIDER: 'offline', GRAMMALECTE: 'off', SURFACES: 'corrections,t2', T2_LEASE_TTL_MS: '3000',
          // A dead instance's row awaits a reconnect this long before it is closed `interrupted`.
          T2_RESUME_GRACE_MS: '1000',
        },
        dotenvPath: null,
      });
      servers.push(await startServer({ config, logger: silentLogger(), surfaces: [async () => correctionsSurface, async () => t2Surface] }));
    }
    urls = servers.map((s) => s.ctx.publicUrl.replace(/\/$/, '')) as [string, string];
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) await s.shutdown('test');
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a candidate live on A is refused on B (4409, ACTIVE_ELSEWHERE) and A goes on; once A\'s session ended, B takes the candidate', async () => {
    const [a, b] = urls;
    const first = await open(a, 'cand-two');
    await first.until(() => first.states().includes('listening'), 'listening on A');
    first.send({ type: 'text', text: 'Bonjour, quels sont les horaires du club le samedi ?' });
    await first.until(() => first.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'reply on A');
    // The row A opened is in Postgres (written as the session opened, behind the frames): B lists it, live.
    await vi.waitFor(async () => expect(await sessionsOf(b, 'cand-two')).toMatchObject([{ status: 'live', endReason: null }]), { timeout: 2000, interval: 20 });

    const refused = await open(b, 'cand-two');
    const { code } = await refused.closed;
    expect(code).toBe(4409);
    expect(refused.json).toEqual([{ type: 'error', code: 4409, name: 'ACTIVE_ELSEWHERE', message: expect.stringContaining('déjà en cours') }]);
    // Another candidate is not affected on B.
    const other = await open(b, 'cand-other');
    await other.until(() => other.states().includes('listening'), 'another candidate on B');
    other.ws.close();
    // A's session was not disturbed: it ends normally, graded, its report through B.
    expect(first.closeCode).toBeUndefined();
    first.send({ type: 'end' });
    expect((await first.closed).code).toBe(1000);
    const listed = await sessionsOf(b, 'cand-two');
    expect(listed).toMatchObject([{ status: 'graded', endReason: 'candidate' }]);
    const row = await storeOf(servers[1]!.ctx).db.withTables<{ t2_sessions: { id: string; instance_id: string } }>()
      .selectFrom('t2_sessions').select('instance_id').where('id', '=', listed[0]!.id).executeTakeFirstOrThrow();
    expect(row.instance_id).toBe('a');

    // The claim went with the session: B now takes the same candidate.
    const again = await open(b, 'cand-two');
    await again.until(() => again.states().includes('listening'), 'listening on B');
    expect(again.closeCode).toBeUndefined();
    again.ws.close();
  });

  it('a live row left by an instance that is gone is closed `interrupted` by a running one, with its turns, and graded', async () => {
    // What kill -9 of instance `ghost` leaves in Postgres: its session row, live, two turns; no claim.
    const ghost = new SessionStore(storeOf(servers[0]!.ctx), 'ghost');
    await ghost.open({ id: 'ghost-session', candidateId: 'cand-ghost', sujetId: 'club-de-sport', mode: 'text', audioPath: null });
    await ghost.appendTurn('ghost-session', { speaker: 'candidate', text: 'Bonjour, quels sont les tarifs pour les étudiants ?', atMs: 10, final: true });
    await ghost.appendTurn('ghost-session', { speaker: 'interlocutor', text: 'Les étudiants paient vingt euros par mois.', atMs: 900, final: true });
    // A sweep (every third of T2_LEASE_TTL_MS, on either instance) closes it and grades it.
    await vi.waitFor(async () => expect(await sessionsOf(urls[1], 'cand-ghost')).toMatchObject([{ status: 'graded', endReason: 'interrupted' }]), { timeout: 10_000, interval: 50 });
    const row = await ghost.get('ghost-session');
    expect(row).toMatchObject({ instance_id: 'ghost', end_reason: 'interrupted' });
    expect(JSON.parse(row!.transcript)).toHaveLength(2);
  });
});

/**
 * Self-fencing on two real instances, one Postgres, simulated time (the claims' clock is handed in
 * and the renewal interval is a fake timer): A's store writes fail; two renewal periods later A has
 * stopped its session (1011) and /readyz says 503 while B still counts A alive; once A's claims
 * expired B closes and grades the row; A comes back ready and grades nothing a second time.
 */
describe.skipIf(!pgReq.ok)(`T2 self-fencing across two instances, one Postgres (${pgReq.reason})`, () => {
  const TTL = 3000;
  const PERIOD = TTL / 3;
  let dir: string;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const servers: RunningServer[] = [];

  afterAll(async () => {
    vi.useRealTimers();
    for (const s of servers) await s.shutdown('test');
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('A fences before its claims expire, B closes and grades A\'s session once, A comes back ready', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    dir = mkdtempSync(join(tmpdir(), 'palabre-t2-fence-'));
    database = await createTestDatabase(pgReq.path);
    let now = 1_800_000_000_000;
    let cut = false;
    const flaky = (s: Store): Store => ({ ...s, writeAll: (q) => (cut ? Promise.reject(new Error('store unreachable')) : s.writeAll(q)) });
    for (const name of ['a', 'b']) {
      const config = loadPalabreConfig({
        env: {
          PORT: '0', MQTT_EMBEDDED_PORT: '0', DATA_DIR: join(dir, name), T2_RECORDINGS_DIR: join(dir, 'shared-audio'), DATABASE_URL: database.url, INSTANCE_ID: name,
          JWT_SECRET: 'shared-jwt-secret-0123456789', SESSION_SECRET: 'shared-session-secret-0123456789',
          CORRECTION_PROVIDER: 'offline', GRAMMALECTE: 'off', SURFACES: 'corrections,t2', T2_LEASE_TTL_MS: String(TTL),
          // No grace: a dead instance's rows are closed as soon as its claims expire (with one, they
          // would first await a reconnect: test/t2/failover.test.ts).
          T2_RESUME_GRACE_MS: '0',
        },
        dotenvPath: null,
      });
      const t2 = createT2Surface({ now: () => now, ...(name === 'a' ? { store: flaky } : {}) });
      servers.push(await startServer({ config, logger: silentLogger(), surfaces: [async () => correctionsSurface, async () => t2] }));
    }
    const [a, b] = servers.map((s) => s.ctx.publicUrl.replace(/\/$/, '')) as [string, string];
    const claimsRows = storeOf(servers[1]!.ctx).db.withTables<{ t2_claims: { key: string; expires_at: number | string } }>();
    // One renewal period on both instances. Simulated time jumps faster than Postgres answers:
    // wait for B's renewal to land, as it would within its 1 s period (else B would fence too).
    const tick = async (): Promise<void> => {
      now += PERIOD;
      await vi.advanceTimersByTimeAsync(PERIOD);
      await vi.waitFor(async () => expect(Number((await claimsRows.selectFrom('t2_claims').select('expires_at').where('key', '=', 'instance:b').executeTakeFirstOrThrow()).expires_at)).toBe(now + TTL), { timeout: 5000, interval: 20 });
    };
    const ready = async (base: string): Promise<{ status: number; body: Record<string, unknown> }> => {
      const res = await fetch(`${base}/readyz`);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const rows = storeOf(servers[1]!.ctx).db.withTables<{ t2_sessions: { id: string; status: string; end_reason: string | null; production_id: string | null }; correction_productions: { id: string; candidate_id: string } }>();
    const productions = async (): Promise<number> => (await rows.selectFrom('correction_productions').select('id').where('candidate_id', '=', 'cand-fenced').execute()).length;
    const token = await createAuth(servers[0]!.ctx.config).mintToken({ sub: 'cand-fenced', plan: 'premium' });
    const c = new LiveClient(new WebSocket(`${a.replace(/^http/, 'ws')}/t2/live?${new URLSearchParams({ token, sujet: 'club-de-sport', mode: 'text' }).toString()}`));
    await c.opened;
    await c.until(() => c.states().includes('listening'), 'listening on A');
    c.send({ type: 'text', text: 'Bonjour, quels sont les horaires du club le samedi ?' });
    await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'reply on A');
    expect((await ready(a)).status).toBe(200);

    cut = true;
    await tick();
    expect(c.closeCode).toBeUndefined();
    await tick();
    expect((await c.closed).code).toBe(1011);
    expect(await ready(a)).toMatchObject({ status: 503, body: { ready: false, status: 'surface_unready', surface: 't2' } });
    expect((await ready(b)).status).toBe(200);
    const [row] = await rows.selectFrom('t2_sessions').select(['id', 'status']).execute();
    expect(row).toMatchObject({ status: 'live' });

    // A's claims expire at the next tick: B's sweep closes the row and grades it.
    await tick();
    await vi.waitFor(async () => expect(await rows.selectFrom('t2_sessions').selectAll().where('id', '=', row!.id).executeTakeFirst()).toMatchObject({ status: 'graded', end_reason: 'interrupted' }), { timeout: 10_000, interval: 50 });
    expect(await productions()).toBe(1);

    // The store answers A again: ready at its next renewal; nothing graded twice.
    cut = false;
    await tick();
    await vi.waitFor(async () => expect((await ready(a)).status).toBe(200), { timeout: 5000, interval: 50 });
    await tick();
    await tick();
    expect(await productions()).toBe(1);
  }, 60_000);
});
