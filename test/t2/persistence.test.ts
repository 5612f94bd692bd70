import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../core/store/db.js';
import { SessionStore } from '../../actors/t2/sessionStore.js';
import { PORTABLE_MIGRATIONS } from '../support/migrations.js';
import { sqliteStore } from '../../core/store/sqlStore.js';
import { wavHeader } from '../../actors/t2/wavWriter.js';
import { JournalWriter, journalPathOf } from '../../actors/t2/recordingJournal.js';
import { SessionRecorder } from '../../actors/t2/audioRecorder.js';
import { pcm16FromBytes } from '../../actors/t2/resampler.js';
import { RecordingThread } from '../../actors/t2/recordingThread.js';
import { LiveClient, RecordingCorrections, pcm16k, startT2, type T2Env } from './support.js';

/**
 * One live session per candidate, incremental persistence, the drain on stop and the recovery at
 * start — on real sockets, a real SQLite file, the Gemini Live wire fake.
 */

let env: T2Env | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await env?.close();
  env = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Row {
  id: string;
  candidate_id: string;
  status: string;
  end_reason: string | null;
  transcript: string;
  started_at: string;
  ended_at: string | null;
  production_id: string | null;
  audio_path: string | null;
  audio_bytes: number | null;
  report: string | null;
  recording_pending: number | null;
}

function rowsOf(e: T2Env, candidate: string): Row[] {
  return e.ctx.db.prepare('SELECT * FROM t2_sessions WHERE candidate_id = ? ORDER BY started_at').all(candidate) as Row[];
}

async function until(pred: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timeout waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const REPLY = 'Le club est ouvert de six heures à vingt-trois heures en semaine.';
const gemini = { onConnection: (conn: { autoReply(s: { afterAudioBytes: number; candidateText: string; replyText: string }): void }) => conn.autoReply({ afterAudioBytes: 3200, candidateText: 'Quels sont les horaires', replyText: REPLY }) };

async function oneExchange(e: T2Env, sub: string): Promise<LiveClient> {
  const c = await LiveClient.open(e, { token: await e.mint('premium', sub), sujet: 'club-de-sport' });
  await c.until(() => c.states().includes('listening'), 'listening');
  c.ws.send(pcm16k(100));
  await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'reply');
  return c;
}

describe('one live T2 session per candidate', () => {
  it('a second connection with the same sub is refused 4409 while the first is live; a confirmed takeover ends the first `replaced`, saying why before its report', async () => {
    env = await startT2();
    const first = await LiveClient.open(env, { token: await env.mint('premium', 'cand-twice'), sujet: 'club-de-sport' });
    await first.until(() => first.states().includes('listening'), 'listening');
    first.send({ type: 'text', text: 'Bonjour, combien coûte l’abonnement mensuel ?' });
    await first.until(() => first.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'reply');
    // Not confirmed: the second tab is told the session runs elsewhere; the first goes on untouched.
    const asking = await LiveClient.open(env, { token: await env.mint('premium', 'cand-twice'), sujet: 'club-de-sport' });
    expect((await asking.closed).code).toBe(4409);
    expect(asking.find('error')).toMatchObject({ code: 4409, name: 'ACTIVE_ELSEWHERE', message: expect.stringContaining('autre onglet') });
    expect(first.closeCode).toBeUndefined();
    expect(first.json.some((m) => m.type === 'ended')).toBe(false);
    expect(rowsOf(env, 'cand-twice')).toHaveLength(1);
    first.send({ type: 'text', text: 'Et le week-end ?' });
    await first.until(() => first.json.filter((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final).length === 2, 'second reply');
    // Confirmed (`takeover=1`): the first ends `replaced`, is told so, then gets its report.
    const second = await LiveClient.open(env, { token: await env.mint('premium', 'cand-twice'), sujet: 'club-de-sport', takeover: '1' });
    await first.until(() => first.closeCode !== undefined, 'the first session closed');
    expect(first.closeCode).toBe(1000);
    const types = first.json.map((m) => m.type);
    expect(first.find('ended')).toEqual({ type: 'ended', reason: 'replaced' });
    expect(types.indexOf('ended')).toBeLessThan(types.indexOf('report'));
    await second.until(() => second.states().includes('listening'), 'second listening');
    expect(second.closeCode).toBeUndefined();
    const e = env;
    await until(() => rowsOf(e, 'cand-twice').some((r) => r.status === 'graded'), 'first saved');
    expect(rowsOf(env, 'cand-twice').find((r) => r.status === 'graded')!.end_reason).toBe('replaced');
    // Another candidate is not affected.
    const other = await LiveClient.open(env, { token: await env.mint('premium', 'cand-other'), sujet: 'club-de-sport' });
    await other.until(() => other.states().includes('listening'), 'other listening');
    expect(second.closeCode).toBeUndefined();
    second.ws.close();
    other.ws.close();
  });
});

describe('incremental persistence', () => {
  it('writes the row at the start (real started_at) and each final turn as it happens', async () => {
    env = await startT2();
    const before = Date.now();
    const c = await LiveClient.open(env, { token: await env.mint('premium', 'cand-inc'), sujet: 'club-de-sport' });
    await c.until(() => c.states().includes('listening'), 'listening');
    let [row] = rowsOf(env, 'cand-inc');
    expect(row).toMatchObject({ status: 'live', end_reason: null });
    expect(JSON.parse(row!.transcript)).toEqual([]);
    c.send({ type: 'text', text: 'Bonjour, combien coûte l’abonnement mensuel ?' });
    await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'reply');
    [row] = rowsOf(env, 'cand-inc');
    expect(row!.status).toBe('live');
    expect(JSON.parse(row!.transcript).map((t: { speaker: string }) => t.speaker)).toEqual(['candidate', 'interlocutor']);
    const startedAt = row!.started_at;
    c.send({ type: 'end' });
    await c.closed;
    [row] = rowsOf(env, 'cand-inc');
    expect(row!.status).toBe('graded');
    // The start time written when the session opened is kept by the final save (it held the save time before).
    expect(row!.started_at).toBe(startedAt);
    expect(Date.parse(`${row!.started_at}Z`)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(Date.parse(`${row!.ended_at!}Z`)).toBeGreaterThanOrEqual(Date.parse(`${row!.started_at}Z`));
  });

  it('a session cancelled before it produced anything leaves no row', async () => {
    env = await startT2();
    const c = await LiveClient.open(env, { token: await env.mint('premium', 'cand-nothing'), sujet: 'club-de-sport' });
    await c.until(() => c.states().includes('listening'), 'listening');
    c.send({ type: 'end' });
    expect((await c.closed).code).toBe(4422);
    expect(rowsOf(env, 'cand-nothing')).toEqual([]);
  });
});

describe('drain on stop', () => {
  it('ends every live session as « Terminer » would: saved `server_shutdown`, graded, report sent before the close', async () => {
    env = await startT2({ gemini });
    const clients = await Promise.all(['cand-d1', 'cand-d2', 'cand-d3'].map((sub) => oneExchange(env!, sub)));
    await env.surface.stop({ deadlineAt: Date.now() + 5000 });
    for (const c of clients) {
      expect((await c.closed).code).toBe(1000);
      const types = c.json.map((m) => m.type);
      expect(types.indexOf('report')).toBeGreaterThan(-1);
    }
    for (const sub of ['cand-d1', 'cand-d2', 'cand-d3']) {
      const [row] = rowsOf(env, sub);
      expect(row).toMatchObject({ status: 'graded', end_reason: 'server_shutdown' });
      expect(row!.production_id).toEqual(expect.any(String));
      expect(JSON.parse(row!.transcript)).toHaveLength(2);
      // The recording is saved and a valid WAV.
      const wav = readFileSync(row!.audio_path!);
      expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
    }
    // New connections are refused while it drains / after.
    await expect(LiveClient.open(env, { token: await env.mint('premium', 'late'), sujet: 'club-de-sport' })).rejects.toThrow();
  });

  it('past the grading time: saved `ungraded`, then graded at the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-t2-drain-'));
    dirs.push(dir);
    const corrections = new RecordingCorrections();
    let release!: () => void;
    corrections.hold = new Promise((resolve) => (release = resolve));
    env = await startT2({ gemini, dir, corrections });
    const c = await oneExchange(env, 'cand-slow');
    // The grading never ends (held), so the grading time (¾ of the budget, at most 1 s before the
    // deadline) always passes; the budget is wide enough that closing the recording fits in it
    // even under heavy load (it took over 2 s there), or the session would be cut 1001 instead.
    const stopping = env.surface.stop({ deadlineAt: Date.now() + 6000 });
    // While it drains, a new session is refused at the upgrade: 503 with Retry-After.
    const late = await env.mint('premium', 'cand-late');
    await expect(LiveClient.open(env, { token: late, sujet: 'club-de-sport' })).rejects.toThrow(/503/);
    await stopping;
    const { code } = await c.closed;
    expect(code).toBe(1011);
    expect(c.find('error')).toMatchObject({ name: 'GRADING_FAILED' });
    const [row] = rowsOf(env, 'cand-slow');
    expect(row).toMatchObject({ status: 'ungraded', end_reason: 'server_shutdown', report: null });
    release();
    await env.close();

    // The next start grades it in the background.
    corrections.hold = undefined;
    env = await startT2({ gemini, dir, corrections });
    const e = env;
    await until(() => rowsOf(e, 'cand-slow')[0]!.status === 'graded', 'graded after restart');
    const graded = rowsOf(env, 'cand-slow')[0]!;
    expect(graded.end_reason).toBe('server_shutdown');
    expect(JSON.parse(graded.report!)).toMatchObject({ t2: { endReason: 'server_shutdown' } });
  });
});

describe('drain with more recordings to assemble than its budget', () => {
  it('every session is reported, closed 1000 and saved `server_shutdown`; the WAVs left are assembled at the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-t2-drain-wav-'));
    dirs.push(dir);
    // Each assembly holds the recording thread 1 s (the seam a slow disk or a loaded machine is):
    // six sessions need 6 s of assembly, the budget is 3 s. Before, each session's close waited
    // for its WAV, one after another: the last ones were cut (1001, closed `interrupted` later).
    const slow = (): RecordingThread => new RecordingThread(Date.now, { assemblyDelayMs: 1000 });
    env = await startT2({ gemini, dir, surface: { recordings: slow } });
    const subs = ['cand-w1', 'cand-w2', 'cand-w3', 'cand-w4', 'cand-w5', 'cand-w6'];
    const clients = await Promise.all(subs.map((sub) => oneExchange(env!, sub)));
    const stopAt = Date.now();
    await env.surface.stop({ deadlineAt: stopAt + 3000 });
    const stopMs = Date.now() - stopAt;
    for (const c of clients) {
      expect((await c.closed).code).toBe(1000);
      expect(c.find('report')).toMatchObject({ audioUrl: expect.stringMatching(/\/audio\.wav$/) });
    }
    const rows = subs.map((sub) => rowsOf(env!, sub)[0]!);
    for (const row of rows) expect(row).toMatchObject({ status: 'graded', end_reason: 'server_shutdown', production_id: expect.any(String) });
    // Some WAVs were not assembled by the deadline: their rows say so, their journals are kept.
    const pending = rows.filter((r) => r.recording_pending === 1);
    expect(pending.length).toBeGreaterThan(0);
    console.info(`[t2-drain] ${subs.length} sessions reported and closed 1000 (assembly held 1 s each, budget 3 s); ${subs.length - pending.length} WAVs assembled in the drain, ${pending.length} left pending; stop took ${stopMs} ms`);
    expect(pending.some((r) => existsSync(journalPathOf(r.audio_path!)))).toBe(true);
    // Their download says the recording is being finished, never serves a partial file.
    const owner = await env.mint('premium', pending[0]!.candidate_id);
    const res = await fetch(`${env.baseUrl}/t2/productions/${pending[0]!.production_id}/audio.wav`, { headers: { authorization: `Bearer ${owner}` } });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: 'recording_pending' });
    const listed = await fetch(`${env.baseUrl}/api/t2/sessions/${pending[0]!.id}/audio.wav`, { headers: { authorization: `Bearer ${owner}` } });
    expect(listed.status).toBe(409);
    await env.close();

    // The next start takes sessions at once and assembles the journals in the background.
    env = await startT2({ gemini, dir });
    const e = env;
    await until(() => subs.every((sub) => rowsOf(e, sub)[0]!.recording_pending === null), 'pending recordings assembled', 15_000);
    for (const sub of subs) {
      const row = rowsOf(env, sub)[0]!;
      // Unchanged by the assembly: still the drain's end, graded once.
      expect(row).toMatchObject({ status: 'graded', end_reason: 'server_shutdown' });
      const wav = readFileSync(row.audio_path!);
      expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
      expect(row.audio_bytes).toBe(wav.length - 44);
      // At least the candidate's 100 ms (24 kHz mono PCM16): a journal cut of its last block held less.
      expect(row.audio_bytes).toBeGreaterThanOrEqual(4800);
    }
    expect(readdirSync(join(dir, 't2-audio')).filter((f) => f.endsWith('.journal'))).toEqual([]);
    const owner2 = await env.mint('premium', pending[0]!.candidate_id);
    const now = await fetch(`${env.baseUrl}/t2/productions/${pending[0]!.production_id}/audio.wav`, { headers: { authorization: `Bearer ${owner2}` } });
    expect(now.status).toBe(200);
    expect(Buffer.from(await now.arrayBuffer()).equals(readFileSync(pending[0]!.audio_path!))).toBe(true);
  }, 40_000);
});

describe('recovery at start of what a crash left open', () => {
  it('closes a `live` row as `interrupted`, repairs its WAV header, and grades it when the candidate spoke', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-t2-crash-'));
    dirs.push(dir);
    // What kill -9 leaves: a live row with two turns, a WAV whose header still says 0 bytes.
    const db = openStore({ path: join(dir, 'palabre.db') });
    // Written by the instance's previous run (same INSTANCE_ID, default the host name).
    const store = new SessionStore(sqliteStore(db, PORTABLE_MIGRATIONS), hostname());
    const audioDir = join(dir, 't2-audio');
    mkdirSync(audioDir, { recursive: true });
    const wavPath = join(audioDir, 'crashed.wav');
    writeFileSync(wavPath, Buffer.concat([wavHeader(24000, 0), Buffer.alloc(4801, 3)]));
    await store.open({ id: 'crashed', candidateId: 'cand-crash', sujetId: 'club-de-sport', mode: 'audio', audioPath: wavPath });
    await store.appendTurn('crashed', { speaker: 'candidate', text: 'Quels sont les horaires ?', atMs: 10, final: true });
    await store.appendTurn('crashed', { speaker: 'interlocutor', text: REPLY, atMs: 900, final: true });
    await store.open({ id: 'silent', candidateId: 'cand-silent', sujetId: 'club-de-sport', mode: 'text', audioPath: null });
    // What kill -9 leaves of a session recorded by this version: its journal, no WAV yet.
    const journaledWav = join(audioDir, 'journaled.wav');
    const journal = JournalWriter.create(journaledWav, 5000);
    const ref = SessionRecorder.create(join(dir, 'ref.wav'), () => 5000);
    for (let i = 0; i < 100; i++) {
      const pcm = Buffer.alloc(640);
      for (let k = 0; k < 640; k += 2) pcm.writeInt16LE(((i * 37 + k) % 2000) - 1000, k);
      journal.append(0, 5000 + i * 20, pcm);
      ref.candidate(pcm16FromBytes(pcm));
    }
    journal.close();
    const refBytes = (await ref.close()).bytes;
    await store.open({ id: 'journaled', candidateId: 'cand-journal', sujetId: 'club-de-sport', mode: 'audio', audioPath: journaledWav });
    db.close();

    env = await startT2({ dir });
    const e = env;
    await until(() => rowsOf(e, 'cand-crash')[0]!.status === 'graded', 'graded');
    const row = rowsOf(env, 'cand-crash')[0]!;
    expect(row).toMatchObject({ end_reason: 'interrupted', audio_bytes: 4800 });
    expect(JSON.parse(row.transcript)).toHaveLength(2);
    const wav = readFileSync(wavPath);
    expect(statSync(wavPath).size).toBe(44 + 4800);
    expect(wav.readUInt32LE(4)).toBe(36 + 4800);
    expect(wav.readUInt32LE(40)).toBe(4800);
    expect(env.corrections.oral.find((r) => r.candidateId === 'cand-crash')?.transcript).toHaveLength(2);
    // The journal assembled into the WAV a live recorder would have written, then deleted.
    await until(() => rowsOf(e, 'cand-journal')[0]!.status !== 'live', 'journaled closed');
    expect(rowsOf(env, 'cand-journal')[0]).toMatchObject({ end_reason: 'interrupted', audio_bytes: refBytes, audio_path: journaledWav });
    expect(refBytes).toBeGreaterThan(90_000);
    expect(readFileSync(journaledWav).equals(readFileSync(join(dir, 'ref.wav')))).toBe(true);
    expect(existsSync(journalPathOf(journaledWav))).toBe(false);
    // No candidate speech: closed, kept, not graded.
    await until(() => rowsOf(e, 'cand-silent')[0]!.status !== 'live', 'silent closed');
    expect(rowsOf(env, 'cand-silent')[0]).toMatchObject({ end_reason: 'interrupted' });
    await until(() => rowsOf(e, 'cand-silent')[0]!.status === 'empty', 'silent marked empty');
  });
});

describe('an existing SQLite file from before the store port', () => {
  it('is migrated in place (instance column, claims table) and its session left live is recovered and graded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-t2-legacy-'));
    dirs.push(dir);
    // What a file written by the SQLite-only T2 store holds: migrations 400–402 as they were, a
    // seeded subject, a session left live by a crash (no instance column yet).
    const db = openStore({ path: join(dir, 'palabre.db') });
    db.exec(`CREATE TABLE t2_sujets (id TEXT PRIMARY KEY, titre TEXT NOT NULL, consigne TEXT NOT NULL, contexte TEXT NOT NULL, role TEXT NOT NULL,
      tache TEXT NOT NULL CHECK (tache = 'EO_T2'), mode TEXT NOT NULL CHECK (mode = 'entrainement'), fact_sheet TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT (datetime('now')));
    CREATE TABLE t2_sessions (id TEXT PRIMARY KEY, candidate_id TEXT NOT NULL, sujet_id TEXT NOT NULL, mode TEXT NOT NULL, status TEXT NOT NULL, end_reason TEXT,
      production_id TEXT, audio_path TEXT, audio_bytes INTEGER, transcript TEXT NOT NULL DEFAULT '[]', rules TEXT, usage TEXT, report TEXT, started_at TEXT NOT NULL, ended_at TEXT);
    CREATE INDEX t2_sessions_candidate ON t2_sessions(candidate_id);
    CREATE INDEX t2_sessions_production ON t2_sessions(production_id);
    CREATE INDEX t2_sessions_status ON t2_sessions(status);
    INSERT INTO schema_migrations (version, name) VALUES (400, 't2_sujets'), (401, 't2_sessions'), (402, 't2_sessions_status');`);
    const turns = [{ speaker: 'candidate', text: 'Quels sont les horaires ?', atMs: 10, final: true }, { speaker: 'interlocutor', text: REPLY, atMs: 900, final: true }];
    db.prepare(`INSERT INTO t2_sessions (id, candidate_id, sujet_id, mode, status, transcript, started_at) VALUES ('old', 'cand-legacy', 'club-de-sport', 'text', 'live', ?, datetime('now'))`).run(JSON.stringify(turns));
    db.close();

    env = await startT2({ dir });
    const e = env;
    await until(() => rowsOf(e, 'cand-legacy')[0]?.status === 'graded', 'graded after the upgrade');
    expect(rowsOf(env, 'cand-legacy')[0]).toMatchObject({ end_reason: 'interrupted' });
    const versions = env.ctx.db.prepare('SELECT version FROM schema_migrations WHERE version >= 400 ORDER BY version').pluck().all();
    expect(versions).toEqual([400, 401, 402, 403, 404, 405, 406]);
    // The 9 subjects are seeded into the old table; a new session runs and is written with this instance.
    const c = await LiveClient.open(env, { token: await env.mint('premium', 'cand-new'), sujet: 'club-de-sport' });
    await c.until(() => c.states().includes('listening'), 'listening');
    const row = env.ctx.db.prepare("SELECT instance_id FROM t2_sessions WHERE candidate_id = 'cand-new'").get() as { instance_id: string };
    expect(row.instance_id).toBe(hostname());
    c.ws.close();
  });
});
