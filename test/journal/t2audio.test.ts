import { afterEach, describe, expect, it } from 'vitest';
import { JournalRecorder } from '../../core/journal/recorder.js';
import { JournalStore } from '../../core/journal/store.js';
import { replayJournal } from '../../core/journal/replay.js';
import { storeOf } from '../../core/store/appStore.js';
import { t2liveMachine } from '../../machines/t2live.js';
import { fakeTone } from '../fakes/geminiLive.js';
import { LiveClient, pcm16k, startT2, type T2Env } from '../t2/support.js';

/**
 * A T2 session in audio mode (the real SDK against the Gemini Live wire fake) is journaled with
 * the recording referenced (its audio chunks take the direct pipe, not the chart's events: they
 * are never steps), and replays the same.
 */
let env: T2Env | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('journal of a T2 audio session', () => {
  it('references the recording, copies no audio, and replays the same', async () => {
    const replyPcm = fakeTone(300);
    env = await startT2({
      gemini: {
        onConnection: (conn) =>
          conn.autoReply({ afterAudioBytes: 9600, candidateText: () => ' Bonjour, quel est le loyer', replyText: () => 'Le loyer est de 1 150 dollars par mois.', replyPcm, partBytes: 1000, partsPerMessage: 4 }),
      },
    });
    const store = new JournalStore(storeOf(env.ctx));
    const recorder = new JournalRecorder(env.ctx.runtime, { store }).start();
    const c = await LiveClient.open(env, { token: await env.mint('premium', 'cand-audio'), sujet: 'appartement-centre-ville' });
    await c.until(() => c.states().includes('listening'), 'listening');
    for (let i = 0; i < 6; i++) c.ws.send(pcm16k(60, i));
    await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'a final reply', 20_000);
    c.send({ type: 'end' });
    expect((await c.closed).code).toBe(1000);
    await env.surface.stop();
    env.ctx.runtime.shutdown();
    await recorder.close();
    const [summary] = (await store.list()).filter((s) => s.machine === 't2live');
    const journal = (await store.get(summary!.id))!;
    expect(journal.endedAt).not.toBeNull();
    const text = JSON.stringify(journal);
    // The recording is referenced (its path and size, as the session's save returned them)…
    expect(text).toMatch(/"audioPath":"[^"]+t2-audio\/[^"]+","audioBytes":[1-9]\d*/);
    // …and no audio is copied: no run of base64 (the Live API's form) nor a byte array.
    expect(text).not.toMatch(/[A-Za-z0-9+/]{200,}/);
    expect(text).not.toMatch(/(\d{1,3},){100}/);
    expect(replayJournal(journal, { machine: t2liveMachine })).toMatchObject({ same: true, steps: journal.steps.length });
  }, 60_000);
});
