import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClient, startT2, type T2Env } from './support.js';

/**
 * Frames a client sends as soon as its socket opens, before the session is authorized, its subject
 * read and its interlocutor connected: none is dropped. A message is held and given to the
 * dialogue as it opens; « Terminer » cancels the session that had not begun (closed 1000
 * `cancelled`). Real socket, real chart, offline interlocutor in text mode.
 */
let env: T2Env;
beforeAll(async () => {
  env = await startT2({ env: { T2_DEFAULT_MODE: 'text' } });
});
afterAll(async () => {
  await env?.close();
});

/** A socket whose `open` handler sends `frames` at once, in the same task as the open. */
async function openAndSend(frames: unknown[], sub: string): Promise<LiveClient> {
  const token = await env.mint('premium', sub);
  const ws = new WebSocket(`${env.wsUrl}/t2/live?${new URLSearchParams({ token, sujet: 'club-de-sport', mode: 'text' }).toString()}`);
  ws.once('open', () => {
    for (const f of frames) ws.send(JSON.stringify(f));
  });
  const c = new LiveClient(ws);
  await c.opened;
  return c;
}

describe('t2 frames sent right at the socket’s open', () => {
  it('a message is held until the dialogue opens, then answered (10 sockets of 10)', async () => {
    const clients = await Promise.all(Array.from({ length: 10 }, (_, i) => openAndSend([{ type: 'text', text: `Bonjour, quels sont vos horaires ? (${i})` }], `open-text-${i}`)));
    for (const [i, c] of clients.entries()) {
      await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final === true), `socket ${i}: the interlocutor's reply`, 20_000);
      const candidate = c.json.filter((m) => m.type === 'transcript' && m.speaker === 'candidate' && m.final === true).map((m) => m.text);
      expect(candidate).toEqual([`Bonjour, quels sont vos horaires ? (${i})`]);
      expect(c.json.some((m) => m.type === 'error')).toBe(false);
    }
    for (const c of clients) c.ws.close();
  }, 60_000);

  it('« Terminer » at the open ends every session: cancelled (1000) before the dialogue, « rien à évaluer » (4422) once it opened (10 sockets of 10)', async () => {
    const clients = await Promise.all(Array.from({ length: 10 }, (_, i) => openAndSend([{ type: 'end' }], `open-end-${i}`)));
    for (const c of clients) {
      const { code, reason } = await Promise.race([c.closed, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no close; got ${JSON.stringify(c.json)}`)), 20_000))]);
      // Whichever state the end found the session in, it was acted upon, never dropped.
      expect(['1000 cancelled', '4422 NOTHING_TO_GRADE']).toContain(`${String(code)} ${reason}`);
    }
  }, 60_000);

  it(`messages held past the limit are refused with an error frame, the others answered`, async () => {
    const texts = Array.from({ length: 12 }, (_, i) => ({ type: 'text', text: `Question numéro ${i} ?` }));
    const c = await openAndSend(texts, 'open-many');
    await c.until(() => c.json.filter((m) => m.type === 'error').length + c.json.filter((m) => m.type === 'transcript' && m.speaker === 'candidate' && m.final === true).length >= 12, 'every message answered or refused', 20_000);
    const accepted = c.json.filter((m) => m.type === 'transcript' && m.speaker === 'candidate' && m.final === true).length;
    const refused = c.json.filter((m) => m.type === 'error');
    // Either the dialogue opened before some of them (all accepted), or the ones past the limit were refused, each with a frame.
    expect(accepted + refused.length).toBe(12);
    for (const e of refused) expect(e).toMatchObject({ name: 'NOT_READY', code: 4425 });
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
    c.ws.close();
  }, 60_000);
});
