import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedSession } from './reportFixture.js';
import { LiveClient, startT2, type T2Env } from './support.js';

/** « Mes séances » over real HTTP: each candidate sees only their own sessions; errors say what to do. */
let env: T2Env | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const get = (e: T2Env, path: string, token?: string) => fetch(`${e.baseUrl}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

describe('GET /api/t2/sessions…', () => {
  it('lists the caller’s sessions only, with subject, status and report; the detail adds the transcript; downloads work', async () => {
    env = await startT2();
    const wav = join(env.config.DATA_DIR, 'rec.wav');
    writeFileSync(wav, Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(40)]));
    const mine = await seedSession(env, { candidateId: 'alice', audioPath: wav, mode: 'audio' });
    const other = await seedSession(env, { candidateId: 'bob' });
    const alice = await env.mint('free', 'alice');

    const list = await get(env, '/api/t2/sessions', alice);
    expect(list.status).toBe(200);
    const { sessions } = (await list.json()) as { sessions: Array<Record<string, unknown>> };
    expect(sessions.map((s) => s.id)).toEqual([mine]);
    expect(sessions[0]).toMatchObject({ sujet: { id: 'club-de-sport' }, status: 'graded', endReason: 'candidate', hasAudio: true, report: { scoreGlobal: 12 } });
    expect(String(sessions[0]!.startedAt)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(sessions[0]).not.toHaveProperty('transcript');

    const detail = (await (await get(env, `/api/t2/sessions/${mine}`, alice)).json()) as Record<string, unknown>;
    expect((detail.transcript as unknown[]).length).toBe(4);
    expect(detail).not.toHaveProperty('audioPath');

    const txt = await get(env, `/api/t2/sessions/${mine}/transcript.txt`, alice);
    expect(txt.headers.get('content-type')).toContain('text/plain');
    expect(txt.headers.get('content-disposition')).toContain(`t2-${mine}.txt`);
    expect(await txt.text()).toContain('Vous : Bonjour, je voudrais savoir les horaires du club');
    const audio = await get(env, `/api/t2/sessions/${mine}/audio.wav`, alice);
    expect(audio.status).toBe(200);
    expect(Buffer.from(await audio.arrayBuffer()).subarray(0, 4).toString()).toBe('RIFF');

    // Bob's session is not found for Alice, whatever the route.
    for (const path of [`/api/t2/sessions/${other}`, `/api/t2/sessions/${other}/transcript.txt`, `/api/t2/sessions/${other}/audio.wav`]) {
      const r = await get(env, path, alice);
      expect(r.status).toBe(404);
      expect(((await r.json()) as { message: string }).message).toMatch(/introuvable/);
    }
  });

  it('401 without or with a bad token, 400 for a malformed id, 404 for a text session’s audio', async () => {
    env = await startT2();
    const id = await seedSession(env, { candidateId: 'alice', report: null });
    for (const token of [undefined, 'not.a.jwt']) {
      const r = await get(env, '/api/t2/sessions', token);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
      expect(((await r.json()) as { message: string }).message).toMatch(/Reconnectez-vous/);
    }
    const alice = await env.mint('free', 'alice');
    const bad = await get(env, `/api/t2/sessions/${encodeURIComponent('../etc')}`, alice);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('bad_session_id');
    const noAudio = await get(env, `/api/t2/sessions/${id}/audio.wav`, alice);
    expect(noAudio.status).toBe(404);
    expect(((await noAudio.json()) as { message: string }).message).toMatch(/mode texte/);
    const listed = (await (await get(env, '/api/t2/sessions', alice)).json()) as { sessions: Array<Record<string, unknown>> };
    expect(listed.sessions[0]).toMatchObject({ status: 'ungraded' });
    expect(listed.sessions[0]).not.toHaveProperty('report');
  });

  it('a live session graded at its end is listed with its report and transcript', async () => {
    env = await startT2();
    const token = await env.mint('premium', 'cand-live');
    const c = await LiveClient.open(env, { token, sujet: 'club-de-sport', mode: 'text' });
    await c.until(() => c.states().includes('listening'), 'listening');
    c.send({ type: 'text', text: 'Bonjour, quels sont vos horaires ?' });
    await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'reply', 15000);
    c.send({ type: 'end' });
    expect((await c.closed).code).toBe(1000);
    const { sessions } = (await (await get(env, '/api/t2/sessions', token)).json()) as { sessions: Array<{ id: string; sujet: { titre: string }; report?: unknown }> };
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.sujet.titre).toBeTruthy();
    expect(sessions[0]!.report).toBeTruthy();
    const detail = (await (await get(env, `/api/t2/sessions/${sessions[0]!.id}`, token)).json()) as { transcript: Array<{ speaker: string; text: string }> };
    expect(detail.transcript[0]).toMatchObject({ speaker: 'candidate', text: 'Bonjour, quels sont vos horaires ?' });
  });
});

describe('POST /api/t2/dev/token', () => {
  it('in development mints a token with an expiry for the chosen plan, and refuses bad bodies with the expected shape', async () => {
    env = await startT2({ devAuth: true });
    const r = await fetch(`${env.baseUrl}/api/t2/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ plan: 'premium', sub: 'dev-42' }) });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { token: string; expiresAt: string };
    const claims = JSON.parse(Buffer.from(body.token.split('.')[1]!, 'base64url').toString()) as { sub: string; plan: string; exp: number; iat: number };
    expect(claims).toMatchObject({ sub: 'dev-42', plan: 'premium' });
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(2 * 3600);
    expect((await get(env, '/api/t2/sessions', body.token)).status).toBe(200);
    for (const bad of [{ plan: 'gold' }, { plan: 'free', sub: 'a b' }, { plan: 'free', extra: 1 }]) {
      const res = await fetch(`${env.baseUrl}/api/t2/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(bad) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain('Attendu');
    }
  });

  it('does not exist (404) when JWT_SECRET is set', async () => {
    env = await startT2();
    const r = await fetch(`${env.baseUrl}/api/t2/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ plan: 'premium' }) });
    expect(r.status).toBe(404);
    const page = await (await fetch(`${env.baseUrl}/t2/seances`)).text();
    expect(page).not.toContain('Se connecter en mode développement');
    // A host that signs its users in may call the page with their token: the page receives it.
    const token = await env.mint('premium', 'hosted');
    const handed = await (await fetch(`${env.baseUrl}/t2/seances`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(handed).toContain(`data-token="${token}"`);
    const forged = await (await fetch(`${env.baseUrl}/t2/seances`, { headers: { authorization: 'Bearer not.a.jwt' } })).text();
    expect(forged).not.toContain('data-token');
  });
});
