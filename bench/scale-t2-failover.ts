/**
 * A live T2 session survives the death of its instance (docs/scaling.md § A live T2 session survives
 * its instance). Two real `palabre serve` processes (corrections + T2 in text mode, offline
 * interlocutor and grading) on one Postgres behind HAProxy (deploy/haproxy.cfg); a dozen T2 text
 * sessions, all on instance `a` (the `palabre_srv` cookie), two candidate turns each; then `a` is
 * killed (`kill -9`) or stopped (SIGTERM). Each client behaves as the page does: on 1006/1001/4503
 * it reconnects through HAProxy with `resume=1`, backing off 0.25 s → 4 s, until one second before
 * T2_RESUME_GRACE_MS; once resumed it asks a third question, then ends. Reported:
 *  - time from the kill (or the SIGTERM) to the `resume` frame and to the first interlocutor reply
 *    on the new instance (p50, max);
 *  - per session: its transcript given back whole, the exam clock continued (not reset);
 *  - the rows: one per session, graded, all three candidate turns, none `interrupted`.
 *
 *   eval "$(bash deploy/pg-throwaway.sh start)"      # or any DATABASE_URL_TEST
 *   npm run build                                     # the instances run dist/
 *   npx tsx bench/scale-t2-failover.ts [sessions=12] [leaseTtlMs=3000] [kill|term|both=both]
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

const args = process.argv.slice(2);
const SESSIONS = Math.max(1, Number(args[0] ?? 12));
const TTL_MS = Math.max(300, Number(args[1] ?? 3000));
const WHICH = args[2] ?? 'both';
const GRACE_MS = 30_000;
const EXAM_MS = 330_000;
const BASE_URL = process.env.DATABASE_URL_TEST;
const JWT_SECRET = 'bench-jwt-secret-0123456789abcdef';
const QUESTIONS = ['Bonjour, quels sont les horaires du club le samedi ?', 'Combien coûte l’abonnement pour les étudiants ?', 'Est-ce qu’il y a des cours de natation ?'];
if (!BASE_URL) {
  console.error('DATABASE_URL_TEST is needed: eval "$(bash deploy/pg-throwaway.sh start)"');
  process.exit(2);
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const auth = createAuth(loadPalabreConfig({ env: { JWT_SECRET }, dotenvPath: null }));

interface Msg { type: string; speaker?: string; text?: string; final?: boolean; name?: string; value?: string; remainingMs?: number; transcript?: Array<{ speaker: string; text: string }> }

/** One socket of a page: what it received, its close. */
class Socket {
  readonly msgs: Msg[] = [];
  closeCode: number | undefined;
  private wake: (() => void) | undefined;
  constructor(readonly ws: WebSocket, readonly jar: { cookie: string }) {
    ws.on('upgrade', (res) => {
      // HAProxy sets its stickiness cookie on the upgrade: the page's browser would keep it.
      const set = res.headers['set-cookie']?.find((c) => c.startsWith('palabre_srv='));
      if (set) jar.cookie = set.split(';')[0]!;
    });
    ws.on('message', (d) => {
      this.msgs.push(JSON.parse(d.toString()) as Msg);
      this.wake?.();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      this.wake?.();
    });
    ws.on('error', () => undefined);
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
}

/** A candidate's page: one socket at a time, reconnecting as web/t2/static/live.js does. */
class Page {
  readonly jar = { cookie: 'palabre_srv=a' };
  socket!: Socket;
  listeningAt = 0;
  seen: Array<{ speaker: string; text: string }> = [];
  resume: Msg | undefined;
  resumedAt = 0;
  replyAt = 0;
  attempts = 0;
  refusals: Record<string, number> = {};
  failure = '';
  constructor(readonly sub: string, readonly front: string) {}

  async connect(resume: boolean): Promise<Socket> {
    const token = await auth.mintToken({ sub: this.sub, plan: 'premium' });
    const ws = new WebSocket(`${this.front.replace('http', 'ws')}/t2/live?sujet=club-de-sport&mode=text${resume ? '&resume=1' : ''}`, ['palabre.t2', `palabre.bearer.${token}`], { headers: { cookie: this.jar.cookie } });
    this.socket = new Socket(ws, this.jar);
    return this.socket;
  }

  async ask(text: string): Promise<boolean> {
    const s = this.socket;
    const n = s.finals('interlocutor').length;
    s.ws.send(JSON.stringify({ type: 'text', text }));
    return s.until(() => s.finals('interlocutor').length > n, 15_000);
  }

  /** Two turns on `a`. */
  async begin(): Promise<void> {
    const s = await this.connect(false);
    await s.until(() => s.msgs.some((m) => m.type === 'state' && m.value === 'listening'), 20_000);
    this.listeningAt = Date.now();
    for (const q of QUESTIONS.slice(0, 2)) if (!(await this.ask(q))) throw new Error(`${this.sub}: no reply on a`);
    this.seen = [...s.msgs.filter((m) => m.type === 'transcript' && m.final).map((m) => ({ speaker: m.speaker ?? '', text: m.text ?? '' }))];
  }

  /** After the socket dropped: reconnect with resume=1 until resumed, then the third turn, then end. */
  async recover(killedAt: number): Promise<void> {
    await this.socket.until(() => false, 10_000);
    const lostAt = Date.now();
    for (;;) {
      if (Date.now() - lostAt > GRACE_MS - 1000) {
        this.failure = 'gave up: grace period over';
        return;
      }
      await sleep(Math.min(4000, 250 * 2 ** this.attempts++));
      const s = await this.connect(true);
      await s.until(() => s.msgs.some((m) => m.type === 'resume'), 10_000);
      const resume = s.msgs.find((m) => m.type === 'resume');
      if (resume) {
        this.resume = resume;
        this.resumedAt = Date.now() - killedAt;
        break;
      }
      const why = `${s.closeCode ?? 'open'}${s.msgs.find((m) => m.type === 'error')?.name ? ` ${s.msgs.find((m) => m.type === 'error')!.name}` : ''}`;
      this.refusals[why] = (this.refusals[why] ?? 0) + 1;
      if (s.closeCode === 4410) {
        this.failure = 'NOTHING_TO_RESUME';
        return;
      }
    }
    if (!(await this.ask(QUESTIONS[2]!))) {
      this.failure = 'no reply after the resume';
      return;
    }
    this.replyAt = Date.now() - killedAt;
    this.socket.ws.send(JSON.stringify({ type: 'end' }));
    await this.socket.until(() => this.socket.msgs.some((m) => m.type === 'report'), 30_000);
    await this.socket.until(() => false, 5000);
    if (!this.socket.msgs.some((m) => m.type === 'report') || this.socket.closeCode !== 1000) this.failure = `no report (close ${this.socket.closeCode ?? 'none'})`;
  }
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function scenario(how: 'kill' | 'term'): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-bench-t2-failover-'));
  const database = await createTestDatabase(BASE_URL!);
  const db = new pg.Client({ connectionString: database.url });
  const instances: Instance[] = [];
  let haproxy: ChildProcess | undefined;
  try {
    const env = {
      SURFACES: 'corrections,t2', CORRECTION_PROVIDER: 'offline', GRAMMALECTE: 'off', JWT_SECRET, T2_RECORDINGS_DIR: join(dir, 'shared-audio'), TRUST_PROXY: '1',
      T2_LEASE_TTL_MS: String(TTL_MS), T2_RESUME_GRACE_MS: String(GRACE_MS), T2_IDLE_TIMEOUT_MS: '600000', T2_EXAM_DURATION_MS: String(EXAM_MS), SHUTDOWN_TIMEOUT_MS: '20000',
    };
    for (const name of ['a', 'b']) instances.push(await startInstance(name, dir, database.url, env));
    await db.connect();
    const [a, b] = instances as [Instance, Instance];
    const port = await freePort();
    haproxy = spawn('haproxy', ['-f', 'deploy/haproxy.cfg', '-db'], { env: { ...process.env, HAPROXY_BIND: `127.0.0.1:${port}`, PALABRE_A: a.url.slice(7), PALABRE_B: b.url.slice(7) }, stdio: 'ignore' });
    const front = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100 && !(await fetch(`${front}/readyz`).then((r) => r.ok, () => false)); i++) await sleep(100);
    // Both servers up in HAProxy's eyes (rise 2, inter 1 s).
    await sleep(2500);

    const pages = Array.from({ length: SESSIONS }, (_, i) => new Page(`cand-${how}-${i}`, front));
    await Promise.all(pages.map((p) => p.begin()));
    const onA = (await db.query<{ n: string }>(`SELECT count(*) AS n FROM t2_sessions WHERE instance_id = 'a' AND status = 'live'`)).rows[0]!.n;
    const load = loadavg()[0]!;
    const killedAt = Date.now();
    a.proc.kill(how === 'kill' ? 'SIGKILL' : 'SIGTERM');
    await Promise.all(pages.map((p) => p.recover(killedAt)));

    const rows = (await db.query<{ candidate_id: string; instance_id: string; status: string; end_reason: string | null; transcript: string }>('SELECT candidate_id, instance_id, status, end_reason, transcript FROM t2_sessions')).rows;
    const per = pages.map((p) => {
      const mine = rows.filter((r) => r.candidate_id === p.sub);
      const turns = mine[0] ? (JSON.parse(mine[0].transcript) as Array<{ speaker: string; text: string }>) : [];
      const given = (p.resume?.transcript ?? []).map((t) => ({ speaker: t.speaker, text: t.text }));
      // The exam clock went on: what is left on the new instance is at most the exam less the
      // time since the dialogue opened on `a` (a reset would give back the whole exam).
      const leftOnResume = p.resume?.remainingMs ?? -1;
      const elapsedSinceListening = killedAt + p.resumedAt - p.listeningAt;
      return {
        rows: mine.length,
        graded: mine.length === 1 && mine[0]!.status === 'graded',
        interrupted: mine.some((r) => r.end_reason === 'interrupted'),
        candidateTurns: turns.filter((t) => t.speaker === 'candidate').length,
        allThree: QUESTIONS.every((q) => turns.some((t) => t.speaker === 'candidate' && t.text === q)),
        transcriptBack: JSON.stringify(given) === JSON.stringify(p.seen),
        clockContinued: leftOnResume >= 0 && leftOnResume <= EXAM_MS - elapsedSinceListening + 500,
        instance: mine[0]?.instance_id ?? 'none',
      };
    });
    const resumed = pages.filter((p) => p.resume).map((p) => p.resumedAt);
    const replied = pages.filter((p) => p.replyAt > 0).map((p) => p.replyAt);
    const refusals = pages.reduce<Record<string, number>>((m, p) => {
      for (const [k, v] of Object.entries(p.refusals)) m[k] = (m[k] ?? 0) + v;
      return m;
    }, {});
    return {
      how: how === 'kill' ? 'kill -9' : 'SIGTERM', sessions: SESSIONS, liveOnAAtKill: Number(onA), leaseTtlMs: TTL_MS, graceMs: GRACE_MS, loadavg1mAtKill: Math.round(load * 10) / 10,
      resumed: resumed.length, killToResumeMs: { p50: pct(resumed, 50), max: Math.max(...resumed) },
      killToFirstReplyOnNewInstanceMs: { p50: pct(replied, 50), max: Math.max(...replied) },
      refusedWhileTakingOver: refusals,
      transcriptsGivenBack: per.filter((x) => x.transcriptBack).length, clocksContinued: per.filter((x) => x.clockContinued).length,
      rows: { oneRowEach: per.filter((x) => x.rows === 1).length, graded: per.filter((x) => x.graded).length, withAllThreeCandidateTurns: per.filter((x) => x.allThree).length, interrupted: per.filter((x) => x.interrupted).length, onB: per.filter((x) => x.instance === 'b').length },
      failures: pages.filter((p) => p.failure).map((p) => `${p.sub}: ${p.failure}`),
    };
  } finally {
    haproxy?.kill('SIGTERM');
    await db.end().catch(() => undefined);
    await stopInstances(instances);
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const out: Array<Record<string, unknown>> = [];
for (const how of WHICH === 'both' ? (['kill', 'term'] as const) : [WHICH === 'term' ? 'term' as const : 'kill' as const]) out.push(await scenario(how));
console.log(JSON.stringify(out, null, 2));
console.log('\n| how | sessions | resumed | kill → resume p50 / max | kill → first reply p50 / max | transcripts back | clocks continued | rows graded (all 3 turns) | interrupted |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of out) {
  const k = r.killToResumeMs as { p50: number; max: number };
  const f = r.killToFirstReplyOnNewInstanceMs as { p50: number; max: number };
  const rows = r.rows as { graded: number; withAllThreeCandidateTurns: number; interrupted: number };
  console.log(`| ${String(r.how)} | ${String(r.sessions)} | ${String(r.resumed)} | ${k.p50} / ${k.max} ms | ${f.p50} / ${f.max} ms | ${String(r.transcriptsGivenBack)} | ${String(r.clocksContinued)} | ${rows.graded} (${rows.withAllThreeCandidateTurns}) | ${rows.interrupted} |`);
}
