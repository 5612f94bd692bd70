/**
 * Kill one of two instances during T2 sessions. Two real `palabre serve` processes (corrections +
 * T2 in text mode, offline interlocutor and grading) on one Postgres; T2 text sessions spread over
 * both; `kill -9` of instance a in the middle of the dialogues. Then:
 *  - new sessions go to b: with `--haproxy`, through deploy/haproxy.cfg (Debian's haproxy) opened
 *    right after the kill; without, the bench routes like HAProxy's check (where /readyz is 200);
 *  - a's candidates try again at once: refused 4409 while a's claims live, then taken by b;
 *  - b's sweep closes a's rows `interrupted` (with the turns written so far) and grades them;
 *  - every turn a client was told about is checked against the rows: what is missing is printed.
 * A candidate turn counts as acknowledged when the interlocutor's reply to it reached the client.
 *
 *   eval "$(bash deploy/pg-throwaway.sh start)"      # or any DATABASE_URL_TEST
 *   npx tsx bench/scale-t2-kill.ts [sessions=40] [seconds=20] [leaseTtlMs=3000] [--haproxy]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { WebSocket } from 'ws';
import { loadPalabreConfig } from '../actors/palabreConfig.js';
import { createAuth } from '../core/auth.js';
import { createTestDatabase } from '../test/support/stores.js';
import { freePort, startInstance, stopInstances, type Instance } from './support/instances.js';

const HAPROXY = process.argv.includes('--haproxy');
const args = process.argv.slice(2).filter((a) => a !== '--haproxy');
const SESSIONS = Math.max(2, Number(args[0] ?? 40));
const SECONDS = Math.max(4, Number(args[1] ?? 20));
const TTL_MS = Math.max(300, Number(args[2] ?? 3000));
const PACE_MS = 400;
const BASE_URL = process.env.DATABASE_URL_TEST;
const JWT_SECRET = 'bench-jwt-secret-0123456789abcdef';
if (!BASE_URL) {
  console.error('DATABASE_URL_TEST is needed: eval "$(bash deploy/pg-throwaway.sh start)"');
  process.exit(2);
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const auth = createAuth(loadPalabreConfig({ env: { JWT_SECRET }, dotenvPath: null }));

interface Msg { type: string; speaker?: string; text?: string; final?: boolean; name?: string; value?: string }

/** One candidate's socket: what it was told, which of its turns were answered. */
class Client {
  readonly msgs: Msg[] = [];
  readonly acked: string[] = [];
  closeCode: number | undefined;
  closedAt = 0;
  error = '';
  private wake: (() => void) | undefined;
  private constructor(readonly sub: string, readonly instance: Instance, readonly ws: WebSocket) {
    ws.on('message', (d) => {
      this.msgs.push(JSON.parse(d.toString()) as Msg);
      this.wake?.();
    });
    ws.on('close', (code) => {
      this.closedAt = Date.now();
      this.closeCode = code;
      this.wake?.();
    });
    ws.on('error', (err) => {
      this.error = err.message;
    });
  }

  static async open(sub: string, instance: Instance): Promise<Client> {
    const token = await auth.mintToken({ sub, plan: 'premium' });
    const ws = new WebSocket(`${instance.url.replace('http', 'ws')}/t2/live?token=${token}&sujet=club-de-sport&mode=text`);
    const c = new Client(sub, instance, ws);
    await new Promise<void>((resolve) => {
      ws.once('open', () => resolve());
      ws.once('error', () => resolve());
    });
    return c;
  }

  async until(pred: () => boolean, ms: number): Promise<boolean> {
    const end = Date.now() + ms;
    while (!pred()) {
      if (this.closeCode !== undefined || Date.now() > end) return pred();
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 50);
      });
    }
    return true;
  }

  finals(speaker: string): string[] {
    return this.msgs.filter((m) => m.type === 'transcript' && m.final && m.speaker === speaker).map((m) => m.text ?? '');
  }

  /** Text turns until `stop()` or the socket closes; a turn is acked when its reply arrives. */
  async converse(stop: () => boolean): Promise<void> {
    // A text sent before the session is live is not a turn (the chart drops it).
    await this.until(() => this.msgs.some((m) => m.type === 'state' && m.value === 'listening'), 10_000);
    for (let i = 1; !stop() && this.closeCode === undefined; i++) {
      const text = `${this.sub} question ${i} : quels sont les horaires du club le samedi ?`;
      const replies = this.finals('interlocutor').length;
      if (this.ws.readyState !== WebSocket.OPEN) return;
      this.ws.send(JSON.stringify({ type: 'text', text }));
      if (await this.until(() => this.finals('interlocutor').length > replies, 10_000)) this.acked.push(text);
      await sleep(PACE_MS);
    }
  }
}

const dir = mkdtempSync(join(tmpdir(), 'palabre-bench-t2-kill-'));
const database = await createTestDatabase(BASE_URL);
const db = new pg.Client({ connectionString: database.url });
const instances: Instance[] = [];
let haproxy: ChildProcess | undefined;
try {
  const env = {
    SURFACES: 'corrections,t2', CORRECTION_PROVIDER: 'offline', GRAMMALECTE: 'off', JWT_SECRET, T2_RECORDINGS_DIR: join(dir, 'shared-audio'),
    T2_LEASE_TTL_MS: String(TTL_MS), T2_IDLE_TIMEOUT_MS: '600000', T2_EXAM_DURATION_MS: '600000', T2_MAX_SESSIONS: String(SESSIONS * 4),
  };
  for (const name of ['a', 'b']) instances.push(await startInstance(name, dir, database.url, env));
  await db.connect();
  const [a, b] = instances as [Instance, Instance];
  let front: Instance | undefined;
  if (HAPROXY) {
    const port = await freePort();
    haproxy = spawn('haproxy', ['-f', 'deploy/haproxy.cfg', '-db'], {
      env: { ...process.env, HAPROXY_BIND: `127.0.0.1:${port}`, PALABRE_A: a.url.slice(7), PALABRE_B: b.url.slice(7) }, stdio: 'ignore',
    });
    front = { name: 'front', url: `http://127.0.0.1:${port}`, proc: haproxy };
    // Both servers up in HAProxy's eyes: 2 good checks, 1 s apart.
    for (let i = 0; i < 100 && !(await fetch(`${front.url}/readyz`).then((r) => r.ok, () => false)); i++) await sleep(100);
    await sleep(2500);
  }
  // The bench's balancer: like HAProxy's check, new sessions only go where /readyz answers 200.
  const ready = async (): Promise<Instance[]> => {
    const ok = await Promise.all(instances.map(async (x) => (await fetch(`${x.url}/readyz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false)) ? x : undefined));
    return ok.filter((x): x is Instance => x !== undefined);
  };

  const clients = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => Client.open(`cand-${i}`, i % 2 === 0 ? a : b)));
  await Promise.all(clients.map((c) => c.until(() => c.msgs.some((m) => m.type === 'state'), 10_000)));
  let stopped = false;
  const talking = clients.map((c) => c.converse(() => stopped));
  await sleep((SECONDS * 1000) / 2);

  const load = loadavg()[0]!;
  const killedAt = Date.now();
  a.proc.kill('SIGKILL');
  const onA = clients.filter((c) => c.instance === a);
  await Promise.all(onA.map((c) => c.until(() => false, 5000)));
  const socketsClosedMs = Date.now() - killedAt;

  // New candidates, at once: where do they go? (HAProxy has not seen a's death yet: its
  // connection to a is refused, `retries 2` + `option redispatch` send it to b.)
  const fresh: Client[] = [];
  for (let i = 0; i < 10; i++) {
    const to = front ? [front] : await ready();
    fresh.push(await Client.open(`new-${i}`, to[i % to.length]!));
  }
  const freshTalking = fresh.map((c) => c.converse(() => stopped));

  // a's candidates come back at once, through b: refused while a's claims live, then taken.
  let refusals = 0;
  const retried = await Promise.all(onA.map(async (c) => {
    for (;;) {
      const again = await Client.open(c.sub, b);
      await again.until(() => again.msgs.some((m) => m.type === 'state'), 5000);
      if (again.closeCode === 4409) {
        refusals++;
        await sleep(250);
        continue;
      }
      return { client: again, afterMs: Date.now() - killedAt };
    }
  }));
  const retryTalking = retried.map((r) => r.client.converse(() => stopped));

  // b's sweep closes a's live rows `interrupted` and grades them.
  let closedMs = -1;
  let gradedMs = -1;
  for (let t = 0; t < 60_000 && gradedMs < 0; t += 100) {
    const r = await db.query<{ live: string; graded: string }>(`SELECT count(*) FILTER (WHERE status = 'live') AS live, count(*) FILTER (WHERE status = 'graded') AS graded FROM t2_sessions WHERE instance_id = 'a'`);
    if (closedMs < 0 && Number(r.rows[0]!.live) === 0) closedMs = Date.now() - killedAt;
    if (Number(r.rows[0]!.graded) === onA.length) gradedMs = Date.now() - killedAt;
    await sleep(100);
  }
  await sleep((SECONDS * 1000) / 2);
  stopped = true;
  await Promise.all([...talking, ...freshTalking, ...retryTalking]);
  const survivors = [...clients.filter((c) => c.instance === b), ...fresh, ...retried.map((r) => r.client)];
  for (const c of survivors) c.ws.send(JSON.stringify({ type: 'end' }));
  await Promise.all(survivors.map((c) => c.until(() => c.msgs.some((m) => m.type === 'report'), 30_000)));

  // Nothing acknowledged lost: every answered candidate turn, and every final turn a client saw, is in its row.
  const rows = (await db.query<{ candidate_id: string; instance_id: string; status: string; end_reason: string; transcript: string }>(
    'SELECT candidate_id, instance_id, status, end_reason, transcript FROM t2_sessions ORDER BY started_at, seq',
  )).rows;
  const check = (c: Client, instance: string) => {
    const row = rows.find((r) => r.candidate_id === c.sub && r.instance_id === instance);
    const stored = row ? (JSON.parse(row.transcript) as Array<{ speaker: string; text: string }>) : [];
    const has = (speaker: string, text: string): boolean => stored.some((t) => t.speaker === speaker && t.text === text);
    return {
      row,
      ackedMissing: c.acked.filter((t) => !has('candidate', t)).length,
      seenMissing: c.finals('candidate').filter((t) => !has('candidate', t)).length + c.finals('interlocutor').filter((t) => !stored.some((s) => s.speaker === 'interlocutor' && s.text === t)).length,
      seen: c.finals('candidate').length + c.finals('interlocutor').length,
    };
  };
  const killed = onA.map((c) => check(c, 'a'));
  const servedBy = (c: Client): string => (c.instance === front ? rows.find((r) => r.candidate_id === c.sub)?.instance_id ?? 'none' : c.instance.name);
  const lived = survivors.map((c) => check(c, servedBy(c)));
  const sum = (xs: Array<{ [k: string]: unknown }>, k: string): number => xs.reduce((n, x) => n + Number(x[k]), 0);
  const newOn = fresh.reduce<Record<string, number>>((m, c) => ({ ...m, [servedBy(c)]: (m[servedBy(c)] ?? 0) + 1 }), {});
  const summary = {
    sessions: SESSIONS, seconds: SECONDS, leaseTtlMs: TTL_MS, loadavg1mAtKill: Math.round(load * 10) / 10,
    killed: {
      sessions: onA.length,
      ackedTurns: onA.reduce((n, c) => n + c.acked.length, 0), ackedMissing: sum(killed, 'ackedMissing'),
      finalTurnsSeen: sum(killed, 'seen'), finalTurnsSeenMissing: sum(killed, 'seenMissing'),
      rows: killed.map((k) => `${k.row?.status ?? 'missing'}/${k.row?.end_reason ?? '-'}`).reduce<Record<string, number>>((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {}),
      socketsClosedMs, rowsClosedInterruptedMs: closedMs, rowsGradedMs: gradedMs,
      candidatesRetriedOnB: retried.length, refusals4409: refusals, retakenAfterMs: { min: Math.min(...retried.map((r) => r.afterMs)), max: Math.max(...retried.map((r) => r.afterMs)) },
    },
    newSessionsWentTo: newOn, newSessionsVia: front ? 'haproxy (deploy/haproxy.cfg), opened within 1 s of the kill' : 'the bench, to instances whose /readyz is 200',
    newSessionsFailed: fresh.filter((c) => c.error !== '').map((c) => `${c.sub}: ${c.error}`),
    survivors: {
      sessions: survivors.length, reports: survivors.filter((c) => c.msgs.some((m) => m.type === 'report')).length,
      withoutReport: survivors.filter((c) => !c.msgs.some((m) => m.type === 'report')).map((c) => `${c.sub}@${c.instance.name}: close ${c.closeCode ?? 'none'} at ${c.closedAt - killedAt} ms after the kill, acked ${c.acked.length} ${c.error} ${c.msgs.filter((m) => m.type === 'error').map((m) => m.name).join(',')}`),
      ackedTurns: survivors.reduce((n, c) => n + c.acked.length, 0), ackedMissing: sum(lived, 'ackedMissing'), finalTurnsSeenMissing: sum(lived, 'seenMissing'),
    },
  };
  console.log(JSON.stringify(summary, null, 2));
} finally {
  haproxy?.kill('SIGTERM');
  await db.end().catch(() => undefined);
  await stopInstances(instances);
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
}
