import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveClient, pcm16k, startT2, type T2Env } from './support.js';

/** Every close code of spec §8 and docs/t2-live.md, on real sockets. */
let env: T2Env | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('close codes of /t2/live', () => {
  it('4001 AUTH_REQUIRED without a token, with a bad token, and with a malformed query', async () => {
    env = await startT2();
    for (const query of [{ sujet: 'club-de-sport' }, { token: 'not.a.jwt', sujet: 'club-de-sport' }, { token: 'x'.repeat(9000), sujet: 'club-de-sport' }] as Array<Record<string, string>>) {
      const c = await LiveClient.open(env, query);
      const { code, reason } = await c.closed;
      expect(code).toBe(4001);
      expect(reason).toBe('AUTH_REQUIRED');
    }
    expect(env.corrections.oral).toHaveLength(0);
  });

  it('4003 PLAN_INSUFFICIENT for the free plan, with an error message first', async () => {
    env = await startT2();
    const c = await LiveClient.open(env, { token: await env.mint('free'), sujet: 'club-de-sport' });
    const { code } = await c.closed;
    expect(code).toBe(4003);
    expect(c.find('error')).toMatchObject({ code: 4003, name: 'PLAN_INSUFFICIENT' });
  });

  it('4004 SUJET_NOT_FOUND for an unknown or missing subject', async () => {
    env = await startT2();
    const token = await env.mint('premium');
    for (const query of [{ token, sujet: 'nope' }, { token }] as Array<Record<string, string>>) {
      const c = await LiveClient.open(env, query);
      expect((await c.closed).code).toBe(4004);
    }
  });

  it('1011 INTERLOCUTOR_UNAVAILABLE when Gemini refuses the setup', async () => {
    env = await startT2({ gemini: { rejectSetup: { code: 1008, reason: 'model not found' } } });
    const c = await LiveClient.open(env, { token: await env.mint('premium'), sujet: 'club-de-sport' });
    expect((await c.closed).code).toBe(1011);
    expect(c.find('error')).toMatchObject({ code: 1011, name: 'INTERLOCUTOR_UNAVAILABLE' });
  });

  it('1011 INTERLOCUTOR_TIMEOUT when setupComplete does not come within T2_CONNECT_TIMEOUT_MS', async () => {
    env = await startT2({ gemini: { setupDelayMs: 3000 }, env: { T2_CONNECT_TIMEOUT_MS: '200' } });
    const c = await LiveClient.open(env, { token: await env.mint('premium'), sujet: 'club-de-sport' });
    expect((await c.closed).code).toBe(1011);
    expect(c.find('error')).toMatchObject({ code: 1011, name: 'INTERLOCUTOR_TIMEOUT' });
  });

  it('Gemini lost mid-session without a resumption handle: what exists is graded, report, 1000', async () => {
    env = await startT2({ gemini: { onConnection: (conn) => conn.autoReply({ afterAudioBytes: 3200, candidateText: 'Quels sont les horaires', replyText: 'Le club est ouvert de six heures à vingt-trois heures en semaine, et de huit heures à vingt heures le week-end.' }) } });
    const c = await LiveClient.open(env, { token: await env.mint('premium'), sujet: 'club-de-sport' });
    await c.until(() => c.states().includes('listening'), 'listening');
    c.ws.send(pcm16k(100));
    await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'reply');
    env.fake!.connections[0]!.close(1011, 'internal error');
    expect((await c.closed).code).toBe(1000);
    expect((c.find('report')!.report as { t2: { endReason: string } }).t2.endReason).toBe('interlocutor_lost');
    expect(env.corrections.oral[0]!.transcript).toHaveLength(2);
    // The subject's fact sheet goes with the transcript: the grade counts the information obtained.
    expect(env.corrections.oral[0]!.sujet?.faits.map((f) => f.theme)).toContain('horaires');
  });

  it('4422 NOTHING_TO_GRADE when the candidate ends before saying anything', async () => {
    env = await startT2();
    const c = await LiveClient.open(env, { token: await env.mint('premium'), sujet: 'club-de-sport' });
    await c.until(() => c.states().includes('listening'), 'listening');
    c.send({ type: 'end' });
    expect((await c.closed).code).toBe(4422);
    expect(env.corrections.oral).toHaveLength(0);
  });

  it('4429 TOO_MANY_SESSIONS beyond T2_MAX_SESSIONS', async () => {
    env = await startT2({ env: { T2_MAX_SESSIONS: '1' } });
    const first = await LiveClient.open(env, { token: await env.mint('premium', 'cand-a'), sujet: 'club-de-sport' });
    await first.until(() => first.states().includes('listening'), 'listening');
    const second = await LiveClient.open(env, { token: await env.mint('premium', 'cand-b'), sujet: 'club-de-sport' });
    expect((await second.closed).code).toBe(4429);
    first.ws.close();
  });

  it('1000 after the report in text mode (no Gemini key), the offline interlocutor answering from the fact sheet', async () => {
    env = await startT2();
    const c = await LiveClient.open(env, { token: await env.mint('premium'), sujet: 'club-de-sport' });
    await c.until(() => c.states().includes('listening'), 'listening');
    c.send({ type: 'text', text: 'Bonjour, combien coûte l’abonnement mensuel ?' });
    await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'reply');
    const reply = c.json.find((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final)!;
    expect(reply.text).toBe('Bonjour. L’abonnement mensuel coûte 49 dollars, ou 480 dollars si vous payez l’année complète en une seule fois.');
    c.send({ type: 'text', text: 'Et la piscine, elle est ouverte quand ?' });
    await c.until(() => c.json.filter((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final).length === 2, 'second reply');
    c.send({ type: 'end' });
    const { code } = await c.closed;
    expect(code).toBe(1000);
    const report = c.find('report')!;
    // Text mode records no audio: no URL to download.
    expect(report.audioUrl).toBeNull();
    const idx = c.json.findIndex((m) => m.type === 'report');
    expect(c.json.slice(idx + 1).map((m) => m.type === 'state' ? m.value : m.type)).toEqual(['ended']);
    expect(env.corrections.oral[0]!.transcript).toHaveLength(4);
  });

  it('text mode never creates an audio file, even when the client sends binary frames', async () => {
    env = await startT2();
    const c = await LiveClient.open(env, { token: await env.mint('premium', 'cand-text'), sujet: 'club-de-sport' });
    await c.until(() => c.states().includes('listening'), 'listening');
    for (let i = 0; i < 5; i++) c.ws.send(pcm16k(100, i));
    c.send({ type: 'text', text: 'Bonjour, combien coûte l’abonnement mensuel ?' });
    await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'reply');
    c.send({ type: 'end' });
    expect((await c.closed).code).toBe(1000);
    const dir = join(env.config.DATA_DIR, 't2-audio');
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    const row = env.ctx.db.prepare('SELECT audio_path FROM t2_sessions WHERE candidate_id = ?').get('cand-text') as { audio_path: string | null };
    expect(row.audio_path).toBeNull();
  });

  it('a frame outside the protocol or too large gets an error message and changes nothing else', async () => {
    env = await startT2({ gemini: { onConnection: (conn) => conn.autoReply({ afterAudioBytes: 3200, candidateText: 'Bonjour', replyText: 'Le club est ouvert de six heures à vingt-trois heures en semaine, et de huit heures à vingt heures le week-end.' }) }, env: { T2_MAX_FRAME_BYTES: '4096' } });
    const c = await LiveClient.open(env, { token: await env.mint('premium'), sujet: 'club-de-sport' });
    await c.until(() => c.states().includes('listening'), 'listening');
    c.ws.send('not json');
    c.send({ type: 'hello' });
    c.send({ type: 'text', text: '' });
    c.send({ type: 'audio', data: '***' });
    c.ws.send(Buffer.alloc(5000)); // over 4096
    c.ws.send(Buffer.alloc(3)); // odd length
    await c.until(() => c.json.filter((m) => m.type === 'error').length === 6, 'six errors');
    expect(c.json.filter((m) => m.type === 'error').map((m) => m.code)).toEqual([4400, 4400, 4400, 4400, 4413, 4400]);
    expect(env.fake!.connections[0]!.audioBytes()).toBe(0);
    expect(c.closeCode).toBeUndefined();
    // The session still works after them.
    c.ws.send(pcm16k(100));
    await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'reply after bad frames');
    expect(env.fake!.connections[0]!.audioBytes()).toBe(3200);
    c.ws.close();
  });

  it('a client that disconnects mid-session and does not come back within T2_RESUME_GRACE_MS still gets its production saved with what exists', async () => {
    env = await startT2({ env: { T2_RESUME_GRACE_MS: '200' }, gemini: { onConnection: (conn) => conn.autoReply({ afterAudioBytes: 3200, candidateText: 'Quels sont les horaires', replyText: 'Le club est ouvert de six heures à vingt-trois heures en semaine, et de huit heures à vingt heures le week-end.' }) } });
    const c = await LiveClient.open(env, { token: await env.mint('premium', 'cand-gone'), sujet: 'club-de-sport' });
    await c.until(() => c.states().includes('listening'), 'listening');
    c.ws.send(pcm16k(100));
    await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'reply');
    c.ws.terminate();
    const db = env.ctx.db;
    const deadline = Date.now() + 5000;
    let row: { candidate_id: string; end_reason: string; production_id: string; audio_path: string; transcript: string } | undefined;
    while (!row && Date.now() < deadline) {
      // The row exists from the start (status live, turns appended): wait for the end's write.
      row = db.prepare("SELECT * FROM t2_sessions WHERE candidate_id = ? AND status <> 'live'").get('cand-gone') as typeof row;
      if (!row) await new Promise((r) => setTimeout(r, 20));
    }
    expect(row).toBeDefined();
    expect(row!.end_reason).toBe('disconnected');
    expect(row!.production_id).toEqual(expect.any(String));
    expect(JSON.parse(row!.transcript)).toHaveLength(2);
    expect(env.corrections.oral[0]!.candidateId).toBe('cand-gone');
    // Its actor is released once saved.
    const until = Date.now() + 2000;
    while (env.ctx.runtime.countByKind().t2live && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(env.ctx.runtime.countByKind().t2live ?? 0).toBe(0);
  });
});
