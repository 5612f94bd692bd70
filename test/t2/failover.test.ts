import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Store } from '../../core/store/sqlStore.js';
import { storeOf } from '../../core/store/appStore.js';
import { SessionStore } from '../../actors/t2/sessionStore.js';
import { startGeminiLiveFake, type GeminiLiveFake } from '../fakes/geminiLive.js';
import { LiveClient, pcm16k, RecordingCorrections, startT2, type ClientMessage, type T2Env } from './support.js';

/**
 * A live T2 session outlives its instance (docs/scaling.md § A live T2 session survives
 * its instance): instances in this process on one SQLite file, real sockets, the claims' clock
 * simulated (handed in) with the renewal interval a fake timer. An instance "dies" by losing the
 * store and its sockets at once (it writes nothing more, renews nothing: from the others' side a
 * kill); its candidate reconnects (`resume=1`) to another instance, which takes the session over:
 * transcript back, exam clock continued, one more turn, end → one graded row with every candidate
 * turn. The same through a stop (hand-over), a race of two takers, and a grace that runs out.
 */
const TTL = 3000;
const PERIOD = TTL / 3;
const GRACE = 30_000;
const EXAM = 330_000;
const SUJET = 'club-de-sport';
const QUESTIONS = ['Bonjour, quels sont les horaires du club le samedi ?', 'Combien coûte l’abonnement pour les étudiants ?', 'Est-ce qu’il y a des cours de natation ?'];

interface Row { id: string; instance_id: string; status: string; end_reason: string | null; transcript: string; exam_ends_at: number | string | null; away_since: number | string | null }

describe('T2 failover: a live session taken over by another instance', () => {
  const envs: T2Env[] = [];
  let dir = '';
  let now = 1_000_000;
  let fake: GeminiLiveFake | undefined;

  afterEach(async () => {
    for (const e of envs.splice(0).reverse()) await e.close().catch(() => undefined);
    await fake?.close();
    fake = undefined;
    vi.useRealTimers();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = '';
  });

  /** Instances on one SQLite file; `dying` ones can be cut from the store (what a kill leaves). */
  const start = async (names: string[], geminiBaseUrl?: string): Promise<{ envs: T2Env[]; cut: Map<string, boolean> }> => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    dir = mkdtempSync(join(tmpdir(), 'palabre-t2-failover-'));
    const corrections = new RecordingCorrections();
    const cut = new Map<string, boolean>();
    const started: T2Env[] = [];
    for (const name of names) {
      cut.set(name, false);
      const store = (s: Store): Store => ({ ...s, writeAll: (q) => (cut.get(name) ? Promise.reject(new Error('gone')) : s.writeAll(q)) });
      const env = await startT2({
        dir,
        corrections,
        env: { INSTANCE_ID: name, T2_LEASE_TTL_MS: String(TTL), T2_RESUME_GRACE_MS: String(GRACE), T2_EXAM_DURATION_MS: String(EXAM), SHUTDOWN_TIMEOUT_MS: '20000' },
        surface: { now: () => now, store },
        ...(geminiBaseUrl ? { geminiBaseUrl } : {}),
      });
      envs.push(env);
      started.push(env);
    }
    return { envs: started, cut };
  };
  /** Simulated time: the claims' clock and the renewal timers move together, one period at a time. */
  const advance = async (ms: number): Promise<void> => {
    for (let left = ms; left > 0; left -= PERIOD) {
      now += Math.min(PERIOD, left);
      await vi.advanceTimersByTimeAsync(Math.min(PERIOD, left));
    }
  };
  const rows = (e: T2Env): Promise<Row[]> => storeOf(e.ctx).db.withTables<{ t2_sessions: Row }>().selectFrom('t2_sessions').selectAll().execute();
  const connect = async (e: T2Env, sub: string, resume = false): Promise<LiveClient> => LiveClient.open(e, { token: await e.mint('premium', sub), sujet: SUJET, mode: 'text', ...(resume ? { resume: '1' } : {}) });
  const finals = (c: LiveClient, speaker: string): ClientMessage[] => c.json.filter((m) => m.type === 'transcript' && m.speaker === speaker && m.final === true);
  const ask = async (c: LiveClient, text: string): Promise<void> => {
    const replies = finals(c, 'interlocutor').length;
    c.send({ type: 'text', text });
    await c.until(() => finals(c, 'interlocutor').length > replies, `a reply to « ${text} »`);
  };
  /** A session with two candidate turns answered, on `e`. */
  const twoTurns = async (e: T2Env, sub: string): Promise<LiveClient> => {
    const c = await connect(e, sub);
    await c.until(() => c.states().includes('listening'), 'listening');
    await ask(c, QUESTIONS[0]!);
    await ask(c, QUESTIONS[1]!);
    return c;
  };
  /** The page: reconnects with resume=1 until it is resumed (each refusal is a 4503 RECONNECT). */
  const resumeOn = async (e: T2Env, sub: string): Promise<{ client: LiveClient; refusals: number }> => {
    let refusals = 0;
    for (;;) {
      const c = await connect(e, sub, true);
      await c.until(() => c.find('resume') !== undefined || c.closeCode !== undefined, 'resume or a close');
      if (c.find('resume')) return { client: c, refusals };
      expect(c.closeCode).toBe(4503);
      expect(c.json).toEqual([{ type: 'error', code: 4503, name: 'RECONNECT', message: expect.stringContaining('reprise') }]);
      refusals++;
      if (refusals > 3) throw new Error('never resumed');
      await advance(PERIOD);
    }
  };
  /** The resumed page speaks once more and ends: the report, then 1000. */
  const finish = async (c: LiveClient): Promise<void> => {
    await ask(c, QUESTIONS[2]!);
    c.send({ type: 'end' });
    await c.until(() => c.find('report') !== undefined, 'the report');
    expect((await c.closed).code).toBe(1000);
  };
  const expectGradedWithAllTurns = async (e: T2Env, instance: string, corrections: RecordingCorrections): Promise<void> => {
    const all = await rows(e);
    expect(all).toHaveLength(1);
    const [row] = all;
    expect(row).toMatchObject({ instance_id: instance, status: 'graded', end_reason: 'candidate' });
    const turns = JSON.parse(row!.transcript) as Array<{ speaker: string; text: string }>;
    expect(turns.filter((t) => t.speaker === 'candidate').map((t) => t.text)).toEqual(QUESTIONS);
    expect(turns.filter((t) => t.speaker === 'interlocutor')).toHaveLength(3);
    // Graded once, on the whole dialogue.
    expect(corrections.oral).toHaveLength(1);
    expect(corrections.oral[0]!.transcript.filter((t) => t.speaker === 'candidate').map((t) => t.text)).toEqual(QUESTIONS);
  };

  it('the holder dies: the reconnect is refused 4503 while its claims live, then another instance takes the session over — transcript back, clock continued, one more turn, one graded row', async () => {
    const { envs: [a, b], cut } = await start(['a', 'b']);
    const c = await twoTurns(a!, 'cand-kill');
    // The exam's end is in the row (written as the dialogue opened): set it 100 s ahead, as if the
    // session had run 3 min 50 s on `a`: the instance taking over must continue from there.
    await vi.waitFor(async () => expect((await rows(a!))[0]?.exam_ends_at).not.toBeNull(), { timeout: 2000, interval: 10 });
    const endsAt = Date.now() + 100_000;
    await storeOf(a!.ctx).db.withTables<{ t2_sessions: Row }>().updateTable('t2_sessions').set({ exam_ends_at: endsAt }).execute();

    // `a` dies: nothing more reaches the store from it, its socket is gone.
    cut.set('a', true);
    c.ws.terminate();
    // At once, `a`'s claim on the candidate still lives: the page is told to try again.
    const early = await connect(b!, 'cand-kill', true);
    expect((await early.closed).code).toBe(4503);
    expect(early.json).toEqual([{ type: 'error', code: 4503, name: 'RECONNECT', message: expect.any(String) }]);

    // `a`'s claims expire; `b`'s sweep marks the row as awaiting a taker (not interrupted).
    await advance(TTL + PERIOD);
    await vi.waitFor(async () => expect((await rows(b!))[0]).toMatchObject({ status: 'live', instance_id: 'a', away_since: expect.anything() }), { timeout: 2000, interval: 10 });
    const { client: r } = await resumeOn(b!, 'cand-kill');
    const resume = r.find('resume')!;
    expect(resume.state).toBe('listening');
    expect((resume.transcript as Array<{ speaker: string; text: string }>).map((t) => [t.speaker, t.text])).toEqual([
      ['candidate', QUESTIONS[0]], ['interlocutor', finals(c, 'interlocutor')[0]!.text], ['candidate', QUESTIONS[1]], ['interlocutor', finals(c, 'interlocutor')[1]!.text],
    ]);
    // The exam clock goes on from `a`'s, not from zero.
    expect(resume.remainingMs).toBeLessThanOrEqual(100_000);
    expect(resume.remainingMs).toBeGreaterThan(80_000);
    expect((await rows(b!))[0]).toMatchObject({ instance_id: 'b', away_since: null, status: 'live' });

    await finish(r);
    await expectGradedWithAllTurns(b!, 'b', b!.corrections);
    // A later sweep changes nothing: not interrupted, graded once.
    await advance(GRACE + TTL);
    expect((await rows(b!))[0]).toMatchObject({ status: 'graded', end_reason: 'candidate' });
    expect(b!.corrections.oral).toHaveLength(1);
  });

  it('a stop with another instance running hands the session over: the page is told 4503, reconnects to the other, goes on and ends graded', async () => {
    const { envs: [a, b] } = await start(['a', 'b']);
    const c = await twoTurns(a!, 'cand-stop');
    const stopping = a!.surface.stop();
    expect((await c.closed).code).toBe(4503);
    expect(c.json.at(-1)).toMatchObject({ type: 'error', code: 4503, name: 'RECONNECT' });
    // Nothing was graded or ended on `a`: the row awaits a taker.
    expect(a!.corrections.oral).toHaveLength(0);
    expect(c.find('ended')).toBeUndefined();
    const { client: r } = await resumeOn(b!, 'cand-stop');
    expect((r.find('resume')!.transcript as unknown[]).length).toBe(4);
    await stopping;
    await finish(r);
    await expectGradedWithAllTurns(b!, 'b', b!.corrections);
  });

  it('a stop hands the session over and the same instance, restarted with its INSTANCE_ID, takes it back', async () => {
    const { envs: [a, b] } = await start(['a', 'b']);
    const c = await twoTurns(a!, 'cand-restart');
    await a!.surface.stop();
    expect(c.closeCode).toBe(4503);
    // `a` comes back (a deploy) before the page reconnects, and the balancer's cookie sends it there.
    const again = await startT2({ dir, corrections: b!.corrections, env: { INSTANCE_ID: 'a', T2_LEASE_TTL_MS: String(TTL), T2_RESUME_GRACE_MS: String(GRACE), T2_EXAM_DURATION_MS: String(EXAM) }, surface: { now: () => now } });
    envs.push(again);
    const { client: r } = await resumeOn(again, 'cand-restart');
    expect((r.find('resume')!.transcript as unknown[]).length).toBe(4);
    await finish(r);
    await expectGradedWithAllTurns(again, 'a', b!.corrections);
  });

  it('two instances race to take one session over: exactly one resumes it, the other answers 4503', async () => {
    const { envs: [a, b, c3], cut } = await start(['a', 'b', 'c']);
    const c = await twoTurns(a!, 'cand-race');
    cut.set('a', true);
    c.ws.terminate();
    await advance(TTL + PERIOD);
    const [x, y] = await Promise.all([connect(b!, 'cand-race', true), connect(c3!, 'cand-race', true)]);
    await Promise.all([x, y].map((k) => k.until(() => k.find('resume') !== undefined || k.closeCode !== undefined, 'resume or close')));
    const winners = [x, y].filter((k) => k.find('resume') !== undefined);
    const losers = [x, y].filter((k) => k.find('resume') === undefined);
    expect(winners).toHaveLength(1);
    expect(losers.map((k) => k.closeCode)).toEqual([4503]);
    const winner = winners[0]!;
    const holder = winner === x ? 'b' : 'c';
    expect((await rows(b!))[0]).toMatchObject({ instance_id: holder, status: 'live' });
    await finish(winner);
    await expectGradedWithAllTurns(b!, holder, b!.corrections);
  });

  it('nobody reconnects within the grace: the session is closed `interrupted` and graded, as before; a late reconnect gets 4410', async () => {
    const { envs: [a, b], cut } = await start(['a', 'b']);
    const c = await twoTurns(a!, 'cand-gone');
    cut.set('a', true);
    c.ws.terminate();
    await advance(TTL + PERIOD);
    expect((await rows(b!))[0]).toMatchObject({ status: 'live' });
    expect(b!.corrections.oral).toHaveLength(0);
    await advance(GRACE);
    await vi.waitFor(async () => expect((await rows(b!))[0]).toMatchObject({ status: 'graded', end_reason: 'interrupted' }), { timeout: 5000, interval: 20 });
    const turns = JSON.parse((await rows(b!))[0]!.transcript) as Array<{ speaker: string }>;
    expect(turns.filter((t) => t.speaker === 'candidate')).toHaveLength(2);
    expect(b!.corrections.oral).toHaveLength(1);
    const late = await connect(b!, 'cand-gone', true);
    expect((await late.closed).code).toBe(4410);
    // A second look at the store: still one row, graded once.
    expect(await new SessionStore(storeOf(b!.ctx), 'x').liveElsewhere('cand-gone')).toEqual([]);
  });
});

describe('T2 failover in audio mode: Gemini Live resumed with the stored handle, or primed with the transcript (wire fake)', () => {
  const envs: T2Env[] = [];
  let dir = '';
  let now = 2_000_000;
  let fake: GeminiLiveFake | undefined;
  const REPLY = 'Le club est ouvert de six heures à vingt-trois heures en semaine.';

  afterEach(async () => {
    for (const e of envs.splice(0).reverse()) await e.close().catch(() => undefined);
    await fake?.close();
    fake = undefined;
    vi.useRealTimers();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = '';
  });

  const advance = async (ms: number): Promise<void> => {
    for (let left = ms; left > 0; left -= PERIOD) {
      now += Math.min(PERIOD, left);
      await vi.advanceTimersByTimeAsync(Math.min(PERIOD, left));
    }
  };
  const finals = (c: LiveClient, speaker: string): ClientMessage[] => c.json.filter((m) => m.type === 'transcript' && m.speaker === speaker && m.final === true);

  /** Two instances on one fake and one SQLite file; a spoken session on `a` with one exchange, `a` then dies. */
  const sessionOnDeadA = async (): Promise<{ a: T2Env; b: T2Env; before: ClientMessage[] }> => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    fake = await startGeminiLiveFake({
      onConnection: (conn) => conn.autoReply({ afterAudioBytes: 3200, candidateText: (t) => `Question ${conn.index}-${t}`, replyText: REPLY, resumption: true }),
    });
    dir = mkdtempSync(join(tmpdir(), 'palabre-t2-failover-audio-'));
    const corrections = new RecordingCorrections();
    let cutA = false;
    for (const name of ['a', 'b']) {
      const store = (s: Store): Store => ({ ...s, writeAll: (q) => (name === 'a' && cutA ? Promise.reject(new Error('gone')) : s.writeAll(q)) });
      envs.push(await startT2({ dir, corrections, geminiBaseUrl: fake.baseUrl, env: { INSTANCE_ID: name, T2_LEASE_TTL_MS: String(TTL), T2_RESUME_GRACE_MS: String(GRACE) }, surface: { now: () => now, store } }));
    }
    const [a, b] = envs as [T2Env, T2Env];
    const c = await LiveClient.open(a, { token: await a.mint('premium', 'cand-audio'), sujet: SUJET });
    await c.until(() => c.states().includes('listening'), 'listening');
    c.ws.send(pcm16k(100, 1));
    await c.until(() => finals(c, 'interlocutor').length === 1, 'the first reply');
    // The handle Gemini gave with the reply is on the row.
    await vi.waitFor(async () => expect((await storeOf(b.ctx).db.withTables<{ t2_sessions: Row & { live_handle: string | null } }>().selectFrom('t2_sessions').select('live_handle').executeTakeFirst())?.live_handle).toBe('handle-0-1'), { timeout: 2000, interval: 10 });
    await vi.waitFor(async () => expect((await storeOf(b.ctx).db.withTables<{ t2_sessions: Row }>().selectFrom('t2_sessions').select('transcript').executeTakeFirst())?.transcript).toContain(REPLY), { timeout: 2000, interval: 10 });
    const before = c.json.filter((m) => m.type === 'transcript' && m.final === true);
    cutA = true;
    c.ws.terminate();
    await advance(TTL + PERIOD);
    return { a, b, before };
  };

  /** The page reconnects to `b`, is resumed, speaks once more and ends. */
  const resumeSpeakEnd = async (b: T2Env, gemini: number): Promise<LiveClient> => {
    const r = await LiveClient.open(b, { token: await b.mint('premium', 'cand-audio'), sujet: SUJET, resume: '1' });
    await r.until(() => r.find('resume') !== undefined, 'resume');
    expect((r.find('resume')!.transcript as Array<{ text: string }>).map((t) => t.text)).toEqual(['Question 0-0', REPLY]);
    r.ws.send(pcm16k(100, 2));
    await r.until(() => finals(r, 'interlocutor').length === 1, 'a reply through the new Gemini connection');
    expect(fake!.connections[gemini]!.audioBytes()).toBe(3200);
    r.send({ type: 'end' });
    await r.until(() => r.find('report') !== undefined, 'the report');
    expect((await r.closed).code).toBe(1000);
    const graded = b.corrections.oral;
    expect(graded).toHaveLength(1);
    expect(graded[0]!.transcript.map((t) => t.text)).toEqual(['Question 0-0', REPLY, `Question ${gemini}-0`, REPLY]);
    const [row] = await storeOf(b.ctx).db.withTables<{ t2_sessions: Row }>().selectFrom('t2_sessions').selectAll().execute();
    expect(row).toMatchObject({ instance_id: 'b', status: 'graded', end_reason: 'candidate' });
    return r;
  };

  it('handle accepted: the instance taking over resumes the Live session from the handle the dead one stored', async () => {
    const { b } = await sessionOnDeadA();
    const setups = fake!.connections.length;
    const resumed = resumeSpeakEnd(b, setups);
    const conns = await fake!.waitForSetups(setups + 1);
    expect(conns[setups]!.setup!.sessionResumption).toEqual({ handle: 'handle-0-1' });
    expect(conns[setups]!.resumedFrom).toBe('handle-0-1');
    // Resumed, nothing replayed: the model has the context.
    expect(conns[setups]!.messages.some((m) => 'clientContent' in m)).toBe(false);
    await resumed;
  });

  it('a stop hands a spoken session over: one WAV for the session, the first instance\'s recording then the second\'s', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    fake = await startGeminiLiveFake({
      onConnection: (conn) => conn.autoReply({ afterAudioBytes: 3200, candidateText: (t) => `Question ${conn.index}-${t}`, replyText: REPLY, resumption: true }),
    });
    dir = mkdtempSync(join(tmpdir(), 'palabre-t2-failover-audio-'));
    const corrections = new RecordingCorrections();
    for (const name of ['a', 'b']) envs.push(await startT2({ dir, corrections, geminiBaseUrl: fake.baseUrl, env: { INSTANCE_ID: name, T2_LEASE_TTL_MS: String(TTL), T2_RESUME_GRACE_MS: String(GRACE) }, surface: { now: () => now } }));
    const [a, b] = envs as [T2Env, T2Env];
    const c = await LiveClient.open(a, { token: await a.mint('premium', 'cand-audio'), sujet: SUJET });
    await c.until(() => c.states().includes('listening'), 'listening');
    c.ws.send(pcm16k(100, 1));
    await c.until(() => finals(c, 'interlocutor').length === 1, 'the first reply');
    await a.surface.stop();
    expect(c.closeCode).toBe(4503);
    const [opened] = await storeOf(b.ctx).db.withTables<{ t2_sessions: Row & { audio_path: string } }>().selectFrom('t2_sessions').selectAll().execute();
    // The stopping instance assembled what it recorded (the candidate's 100 ms and the reply's audio).
    const firstPart = statSync(opened!.audio_path).size - 44;
    expect(firstPart).toBeGreaterThan(0);
    const r = await resumeSpeakEnd(b, fake.connections.length);
    expect(r.find('report')!.audioUrl).toEqual(expect.any(String));
    const [row] = await storeOf(b.ctx).db.withTables<{ t2_sessions: Row & { audio_path: string; audio_bytes: number } }>().selectFrom('t2_sessions').selectAll().execute();
    expect(row!.audio_path).toBe(opened!.audio_path);
    expect(row!.audio_bytes).toBeGreaterThan(firstPart);
    expect(statSync(row!.audio_path).size).toBe(44 + row!.audio_bytes);
    // The second instance's own file was joined, then removed.
    expect(readdirSync(join(dir, 't2-audio')).filter((f) => f.startsWith(row!.id))).toEqual([`${row!.id}.wav`]);
  });

  it('handle refused: a new Live session is opened and primed with the transcript so far', async () => {
    const { b } = await sessionOnDeadA();
    // As an expired handle: one the Live API never gave out is refused (close 1008).
    await storeOf(b.ctx).db.withTables<{ t2_sessions: { live_handle: string | null } }>().updateTable('t2_sessions').set({ live_handle: 'expired-handle' }).execute();
    const setups = fake!.connections.length;
    const resumed = resumeSpeakEnd(b, setups + 1);
    // The refused connection never completes its setup: one more completed setup, two more connections.
    const conns = await fake!.waitForSetups(setups + 1);
    expect(conns).toHaveLength(setups + 2);
    expect(conns[setups]!.setup!.sessionResumption).toEqual({ handle: 'expired-handle' });
    expect(conns[setups]!.closed).toBe(true);
    const fresh = conns[setups + 1]!;
    expect(fresh.setup!.sessionResumption).toEqual({});
    await vi.waitFor(() => expect(fresh.messages.some((m) => 'clientContent' in m)).toBe(true), { timeout: 2000, interval: 10 });
    expect(fresh.messages.find((m) => 'clientContent' in m)).toEqual({
      clientContent: { turns: [{ role: 'user', parts: [{ text: 'Question 0-0' }] }, { role: 'model', parts: [{ text: REPLY }] }], turnComplete: false },
    });
    await resumed;
  });
});
