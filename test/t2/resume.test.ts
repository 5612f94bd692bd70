import { afterEach, describe, expect, it } from 'vitest';
import { LiveClient, pcm16k, startT2, type ClientMessage, type T2Env } from './support.js';

/**
 * Server-side resume over real sockets (docs/t2-live.md « A dropped connection »): the socket
 * drops, a new one with the same token (`resume=1`) gets the same session back with its
 * transcript; past T2_RESUME_GRACE_MS the session is graded as `disconnected`; a lost Gemini
 * connection resumes with the last session-resumption handle.
 */
let env: T2Env | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const finals = (c: LiveClient, speaker: string): ClientMessage[] => c.json.filter((m) => m.type === 'transcript' && m.speaker === speaker && m.final);

async function ask(c: LiveClient, text: string): Promise<void> {
  const before = finals(c, 'interlocutor').length;
  c.send({ type: 'text', text });
  await c.until(() => finals(c, 'interlocutor').length > before, `answer to ${text}`);
}

describe('T2 resume after a dropped socket (text mode, offline interlocutor)', () => {
  it('a new socket with the same token within the grace period resumes the session and receives the transcript', async () => {
    env = await startT2();
    const token = await env.mint('premium', 'cand-resume');
    const a = await LiveClient.open(env, { token, sujet: 'club-de-sport', mode: 'text' });
    await a.until(() => a.states().includes('listening'), 'listening');
    await ask(a, 'Bonjour, quels sont vos horaires ?');
    // The network drops: no close frame (the server sees 1006).
    a.ws.terminate();
    await a.closed;
    await new Promise((r) => setImmediate(r));
    expect(env.ctx.runtime.countByKind().t2live).toBe(1);
    const b = await LiveClient.open(env, { token, sujet: 'club-de-sport', mode: 'text', resume: '1' });
    await b.until(() => b.find('resume') !== undefined, 'resume');
    const resume = b.find('resume')!;
    expect(resume.state).toBe('listening');
    const transcript = resume.transcript as Array<{ speaker: string; text: string; final: boolean }>;
    expect(transcript.map((t) => [t.speaker, t.final])).toEqual([['candidate', true], ['interlocutor', true]]);
    expect(transcript[0]!.text).toBe('Bonjour, quels sont vos horaires ?');
    expect(transcript[1]!.text).toBe(String(finals(a, 'interlocutor')[0]!.text));
    expect(resume.remainingMs).toBeGreaterThan(300_000);
    expect(resume.remainingMs).toBeLessThanOrEqual(330_000);
    // Still one session for this candidate (the reconnect's own actor handed over and ended).
    await new Promise((r) => setImmediate(r));
    expect(env.ctx.runtime.countByKind().t2live).toBe(1);
    await ask(b, 'Combien coûte l’abonnement ?');
    b.send({ type: 'end' });
    expect((await b.closed).code).toBe(1000);
    const report = b.find('report')!;
    expect((report.report as { t2: { endReason: string } }).t2.endReason).toBe('candidate');
    // One graded session holding all four turns.
    expect(env.corrections.oral).toHaveLength(1);
    expect(env.corrections.oral[0]!.transcript.map((t) => t.speaker)).toEqual(['candidate', 'interlocutor', 'candidate', 'interlocutor']);
    const rows = env.ctx.db.prepare('SELECT status, end_reason FROM t2_sessions').all();
    expect(rows).toEqual([{ status: 'graded', end_reason: 'candidate' }]);
    // After the end, a new session of the same candidate starts fresh; a resume finds nothing (4410).
    const late = await LiveClient.open(env, { token, sujet: 'club-de-sport', mode: 'text', resume: '1' });
    expect((await late.closed).code).toBe(4410);
    expect(late.find('error')).toMatchObject({ name: 'NOTHING_TO_RESUME' });
    const fresh = await LiveClient.open(env, { token, sujet: 'club-de-sport', mode: 'text' });
    await fresh.until(() => fresh.states().includes('listening'), 'listening');
    expect(fresh.find('resume')).toBeUndefined();
    fresh.ws.close();
  });

  it('a resume while the server still believes the old socket open takes it over (the old one is closed 4409)', async () => {
    env = await startT2();
    const token = await env.mint('premium', 'cand-stale');
    const a = await LiveClient.open(env, { token, sujet: 'club-de-sport', mode: 'text' });
    await a.until(() => a.states().includes('listening'), 'listening');
    await ask(a, 'Bonjour, quels sont vos horaires ?');
    const b = await LiveClient.open(env, { token, sujet: 'club-de-sport', mode: 'text', resume: '1' });
    await b.until(() => b.find('resume') !== undefined, 'resume');
    expect((await a.closed).code).toBe(4409);
    // The tab it left is told why before the close: the session goes on elsewhere.
    expect(a.json.at(-1)).toMatchObject({ type: 'error', code: 4409, name: 'RESUMED_ELSEWHERE', message: expect.stringContaining('continue dans un autre onglet') });
    expect((b.find('resume')!.transcript as unknown[]).length).toBe(2);
    await ask(b, 'Combien coûte l’abonnement ?');
    b.send({ type: 'end' });
    expect((await b.closed).code).toBe(1000);
    expect(env.corrections.oral).toHaveLength(1);
  });

  it('past T2_RESUME_GRACE_MS the session ends as disconnected and is graded; a late resume gets 4410', async () => {
    env = await startT2({ env: { T2_RESUME_GRACE_MS: '300' } });
    const token = await env.mint('premium', 'cand-late');
    const a = await LiveClient.open(env, { token, sujet: 'club-de-sport', mode: 'text' });
    await a.until(() => a.states().includes('listening'), 'listening');
    await ask(a, 'Bonjour, quels sont vos horaires ?');
    a.ws.terminate();
    await expect.poll(() => env!.corrections.oral.length, { timeout: 5000 }).toBe(1);
    expect(env.corrections.oral[0]!.meta).toMatchObject({ endReason: 'disconnected' });
    await expect.poll(() => env!.ctx.db.prepare('SELECT status, end_reason FROM t2_sessions').all(), { timeout: 5000 }).toEqual([{ status: 'graded', end_reason: 'disconnected' }]);
    const b = await LiveClient.open(env, { token, sujet: 'club-de-sport', mode: 'text', resume: '1' });
    expect((await b.closed).code).toBe(4410);
    expect(String(b.find('error')!.message)).toContain('Mes séances');
  });

  it('the drain on stop does not wait out the grace period: a waiting session is saved server_shutdown at once', async () => {
    env = await startT2();
    const token = await env.mint('premium', 'cand-drain');
    const a = await LiveClient.open(env, { token, sujet: 'club-de-sport', mode: 'text' });
    await a.until(() => a.states().includes('listening'), 'listening');
    await ask(a, 'Bonjour, quels sont vos horaires ?');
    a.ws.terminate();
    await a.closed;
    const t0 = Date.now();
    await env.surface.stop({ deadlineAt: Date.now() + 5000 });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(env.ctx.db.prepare('SELECT status, end_reason FROM t2_sessions').all()).toEqual([{ status: 'graded', end_reason: 'server_shutdown' }]);
  });
});

describe('T2 resume with Gemini Live (wire fake)', () => {
  it('the Gemini connection drops mid-session: the session reconnects with the last handle and goes on', async () => {
    env = await startT2({
      gemini: {
        onConnection: (conn) =>
          conn.autoReply({ afterAudioBytes: 3200, candidateText: (t) => `Question ${conn.index}-${t}`, replyText: 'Le club est ouvert de six heures à vingt-trois heures en semaine.', resumption: true }),
      },
    });
    const token = await env.mint('premium', 'cand-gemini');
    const c = await LiveClient.open(env, { token, sujet: 'club-de-sport' });
    await c.until(() => c.states().includes('listening'), 'listening');
    c.ws.send(pcm16k(100, 1));
    await c.until(() => finals(c, 'interlocutor').length === 1, 'first reply');
    env.fake!.connections[0]!.close(1011, 'overloaded');
    const conns = await env.fake!.waitForSetups(2);
    expect(conns[1]!.setup!.sessionResumption).toEqual({ handle: 'handle-0-1' });
    expect(conns[1]!.resumedFrom).toBe('handle-0-1');
    // Then the candidate's own socket drops too and comes back: both links resume.
    c.ws.terminate();
    await c.closed;
    const b = await LiveClient.open(env, { token, sujet: 'club-de-sport', resume: '1' });
    await b.until(() => b.find('resume') !== undefined, 'resume');
    expect((b.find('resume')!.transcript as unknown[]).length).toBe(2);
    b.ws.send(pcm16k(100, 2));
    await b.until(() => finals(b, 'interlocutor').length === 1, 'reply through the resumed Gemini connection');
    expect(conns[1]!.audioBytes()).toBe(3200);
    expect(b.binary.length).toBeGreaterThan(0);
    b.send({ type: 'end' });
    expect((await b.closed).code).toBe(1000);
    expect(env.corrections.oral[0]!.transcript.map((t) => t.text)).toEqual([
      'Question 0-0',
      'Le club est ouvert de six heures à vingt-trois heures en semaine.',
      'Question 1-0',
      'Le club est ouvert de six heures à vingt-trois heures en semaine.',
    ]);
  });

  it('a handle Gemini refuses ends in interlocutor_lost after a few tries, not in a reconnect loop: what exists is graded', async () => {
    env = await startT2({
      gemini: { onConnection: (conn) => conn.autoReply({ afterAudioBytes: 3200, candidateText: 'Bonjour', replyText: 'Le club est ouvert de six heures à vingt-trois heures en semaine.' }) },
    });
    const c = await LiveClient.open(env, { token: await env.mint('premium', 'cand-expired'), sujet: 'club-de-sport' });
    await c.until(() => c.states().includes('listening'), 'listening');
    c.ws.send(pcm16k(100, 1));
    await c.until(() => finals(c, 'interlocutor').length === 1, 'first reply');
    // A handle the fake never issued (as an expired one): every resumed setup is refused 1008.
    const first = env.fake!.connections[0]!;
    first.send({ sessionResumptionUpdate: { newHandle: 'expired-handle', resumable: true } });
    await new Promise((r) => setTimeout(r, 50));
    first.close(1011, 'overloaded');
    expect((await c.closed).code).toBe(1000);
    expect((c.find('report')!.report as { t2: { endReason: string } }).t2.endReason).toBe('interlocutor_lost');
    // The first connection, then at most MAX_SILENT_RESUMES resumed ones (each refused).
    expect(env.fake!.connections.length).toBeLessThanOrEqual(4);
    expect(env.fake!.connections.slice(1).every((conn) => conn.resumedFrom === undefined && conn.closed)).toBe(true);
  });
});
