import { describe, expect, it } from 'vitest';
import { createActor, sendTo, setup, type AnyActorLogic } from 'xstate';
import { silentLogger } from '../../core/log.js';
import { createOfflineProvider } from '../../actors/llm/offline.js';
import { registerT2OfflineResponder } from '../../actors/t2/offlineResponder.js';
import { SEED_SUBJECTS } from '../../actors/t2/seedSubjects.js';
import { subjectInputSchema, type Subject } from '../../actors/t2/subjects.js';
import { textInterlocutor } from '../../actors/t2/textInterlocutor.js';

/**
 * The text interlocutor replies only once the session's writes so far are done (`written`): the
 * candidate turn a client sees answered is in the store, even when the store is a Postgres pool
 * whose write runs behind the frames.
 */
const club = SEED_SUBJECTS.find((s) => s.id === 'club-de-sport')!;
const subject = { ...subjectInputSchema.parse(club), id: 'club-de-sport' } as Subject;

function host(logic: AnyActorLogic) {
  const received: string[] = [];
  const machine = setup({ actors: { interlocutor: logic } }).createMachine({
    invoke: { id: 'interlocutor', src: 'interlocutor', input: { sessionId: 's', sujetId: 'club-de-sport', mode: 'text' } },
    on: {
      '*': { actions: ({ event }) => void received.push(event.type) },
      ask: { actions: sendTo('interlocutor', { type: 'candidate.text', text: 'Quels sont les horaires du club le samedi ?' }) },
    },
  });
  return { actor: createActor(machine).start(), received };
}

describe('text interlocutor and the session\'s writes', () => {
  it('holds its reply until `written` resolves, then sends it', async () => {
    const unregister = registerT2OfflineResponder();
    try {
      let release!: () => void;
      const pending = new Promise<void>((resolve) => (release = resolve));
      let asked = 0;
      const logic = textInterlocutor({
        subject: () => subject, systemPrompt: () => 'prompt', provider: createOfflineProvider(), model: 'offline', logger: silentLogger(),
        written: () => {
          asked++;
          return pending;
        },
      });
      const { actor, received } = host(logic);
      actor.send({ type: 'ask' });
      // The provider answered (offline, immediate); the reply waits for the write.
      await expect.poll(() => asked, { timeout: 2000, interval: 5 }).toBe(1);
      await new Promise((r) => setImmediate(r));
      expect(received).not.toContain('interlocutor.transcript');
      release();
      await expect.poll(() => received.includes('interlocutor.transcript'), { timeout: 2000, interval: 5 }).toBe(true);
      expect(received.indexOf('interlocutor.transcript')).toBeLessThan(received.indexOf('interlocutor.turnComplete'));
      actor.stop();
    } finally {
      unregister();
    }
  });
});
