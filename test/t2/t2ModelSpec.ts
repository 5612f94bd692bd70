import { fromCallback, type AnyMachineSnapshot } from 'xstate';
import { t2liveMachine, type InterlocutorInput, type T2Context, type T2Input, type ToInterlocutor, type Turn } from '../../machines/t2live.js';
import type { EventSamples, ModelVariant } from '../harness/index.js';
import { MODEL_T0, type T2World } from './t2Oracle.js';

/** What the `t2live` model tests share: input, samples, vertex identity and the recording interlocutor. */
export const input: T2Input = { sessionId: 's1', sujetId: 'club-de-sport', mode: 'audio', examMs: 330_000, warningMs: 30_000, idleMs: 60_000, connectMs: 15_000 };
export const subject = { id: 'club-de-sport', titre: 'Club', consigne: 'Renseignez-vous.', role: 'un employé' };
export const facts = { audioPath: '/tmp/a.wav', audioBytes: 10, rules: { replies: 1 }, usage: {} };
export const REPLY = 'Le club est ouvert de six heures à vingt-trois heures en semaine, et de huit heures à vingt heures le week-end.';

export function serialize(s: AnyMachineSnapshot): string {
  const c = s.context as T2Context;
  const last = c.transcript[c.transcript.length - 1];
  return JSON.stringify({
    v: s.value,
    st: s.status,
    spoke: c.candidateSpoke,
    said: c.transcript.some((t) => t.speaker === 'candidate' && t.text.trim().length > 0),
    open: last && !last.final ? last.speaker : null,
    // A turn of nothing but blanks (dropped when the dialogue ends): its own vertices, so that a
    // session holding one is also finished and graded along some path.
    blank: c.transcript.some((t) => t.text.trim() === ''),
    // One turn or more (capped): fragments joined into one turn and a second turn are told apart.
    turns: Math.min(c.transcript.length, 2),
    err: c.error?.code ?? null,
    graded: c.graded !== null,
    // The drain's grading time passed while closing: finishing then saves without grading.
    late: c.gradeTimeOver,
    facts: c.facts !== null,
    cand: c.candidateId !== null,
    end: c.endReason,
    live: c.liveAt !== null,
    // Messages held before the dialogue opened (one is enough to tell the paths apart).
    held: Math.min(c.heldTexts.length, 1),
  });
}

/** The world of the path being replayed (paths run one after the other). */
export const recorder: { world: T2World; reset(): T2World } = {
  world: { emitted: [], toInterlocutor: [], interlocutors: [], monitored: [], persisted: [], recorded: [] },
  reset() {
    this.world = { emitted: [], toInterlocutor: [], interlocutors: [], monitored: [], persisted: [], recorded: [] };
    return this.world;
  },
};

/** The interlocutor stand-in records what it is sent; its own events are the path's steps. */
const interlocutor = fromCallback<ToInterlocutor, InterlocutorInput>(({ receive, input: opened }) => {
  recorder.world.interlocutors.push(opened);
  receive((event) => recorder.world.toInterlocutor.push(event));
});

/** The production chart with the interlocutor, the rule monitor, the recording and the store recording what they get. */
export const wiredForModel = t2liveMachine.provide({
  actors: { interlocutor },
  actions: {
    monitorReply: (_, reply: { text: string; candidateSpokeBefore: boolean }) => void recorder.world.monitored.push(reply),
    openAudio: () => void recorder.world.recorded.push('open'),
    closeAudio: () => void recorder.world.recorded.push('close'),
    recordCandidate: () => void recorder.world.recorded.push('candidate'),
    recordInterlocutor: () => void recorder.world.recorded.push('interlocutor'),
    recordUsage: () => void recorder.world.recorded.push('usage'),
    persistOpen: (_, { candidateId }: { candidateId: string }) => void recorder.world.persisted.push(`open:${candidateId}`),
    persistTurn: (_, { turn }: { turn: Turn }) => void recorder.world.persisted.push(`turn:${turn.speaker}:${turn.text}`),
    persistDiscard: (_, { keep }: { keep: boolean }) => void recorder.world.persisted.push(keep ? 'discard:keep' : 'discard'),
    persistAway: () => void recorder.world.persisted.push('away'),
  },
});

/** The invoked actors made controllable (the interlocutor stays the recorder above). */
export const controlled = ['authorize', 'loadSubject', 'finishSession', 'evaluate', 'save'];

const idleFirst = (snap: AnyMachineSnapshot): boolean => {
  const c = snap.context as T2Context;
  return c.idleMs < c.examMs;
};

// Timers race in real time but not in the graph: each variant lets only the timer that
// really fires first be offered (idle shorter than the exam, or longer). The chart reads the
// simulated clock (`now`), so the exam time left sent on a reconnect is exact; the clock reads a
// wall-clock time (as `Date.now` would), so a session that forgot when it went live is told so.
const T0 = MODEL_T0;
export const variants: ModelVariant<typeof wiredForModel>[] = [
  { name: 'idle 60 s before the exam ends', input: ({ clock }) => ({ ...input, now: () => T0 + clock.now() }) },
  { name: 'exam 5 min 30 s before idle', input: ({ clock }) => ({ ...input, idleMs: 600_000, now: () => T0 + clock.now() }) },
  // A dropped socket waits 30 s for its candidate (T2_RESUME_GRACE_MS); idle (60 s) and the
  // exam come later, so only the grace timer is offered while the session waits.
  { name: 'resume grace 30 s', input: ({ clock }) => ({ ...input, graceMs: 30_000, now: () => T0 + clock.now() }) },
  // Taken over from another instance: its transcript so far, 100 s of the exam left.
  {
    name: 'taken over, 100 s left',
    input: ({ clock }) => ({
      ...input,
      now: () => T0 + clock.now(),
      restored: { transcript: [{ speaker: 'candidate', text: 'Quels sont les tarifs ?', atMs: 1000, final: true }, { speaker: 'interlocutor', text: REPLY, atMs: 4000, final: true }], examEndsAt: T0 + 100_000 },
    }),
  },
];

export const samples: EventSamples = {
  'xstate.done.actor.authorize': [{ output: { sub: 'cand', features: ['corrections', 'oral_t2_live'] } }, { output: { sub: 'cand', features: ['corrections'] } }],
  'xstate.error.actor.authorize': [{ error: new Error('invalid token') }],
  'xstate.done.actor.loadSubject': [{ output: subject }, { output: null }],
  'xstate.error.actor.loadSubject': [{ error: new Error('db locked') }],
  'xstate.done.actor.finishSession': [{ output: facts }],
  'xstate.error.actor.finishSession': [{ error: new Error('disk full') }],
  'xstate.done.actor.evaluate': [{ output: { report: { ok: true }, productionId: 'p1' } }],
  'xstate.error.actor.evaluate': [{ error: new Error('contract broken') }],
  'xstate.done.actor.save': [{ output: { audioUrl: '/t2/productions/p1/audio.wav' } }],
  'xstate.error.actor.save': [{ error: new Error('db locked') }],
  'xstate.after.idleTimeout.t2live.session.live.idle.watching': (snap) => (idleFirst(snap) && !snap.hasTag('awaitingClient') ? [{}] : []),
  'xstate.after.untilWarning.t2live.session.live.exam.running': (snap) => (idleFirst(snap) || snap.hasTag('awaitingClient') ? [] : [{}]),
  'xstate.after.warningToEnd.t2live.session.live.exam.warned': (snap) => (idleFirst(snap) || snap.hasTag('awaitingClient') ? [] : [{}]),
  // The root's answer to this session's claim: an older session of the candidate awaits its socket.
  'conversation.resume': [{ systemId: 't2:older' }],
  'client.audio': [{ pcm: new Uint8Array(4) }],
  'client.activity': [{}],
  'client.text': [{ text: 'Quels sont les horaires', atMs: 5 }],
  'interlocutor.audio': [{ pcm: new Uint8Array(6) }],
  'interlocutor.transcript': [
    { speaker: 'candidate', text: 'Bonjour', atMs: 1 },
    // Breath or noise transcribed as blanks: not speech.
    { speaker: 'candidate', text: ' ', atMs: 3 },
    { speaker: 'interlocutor', text: REPLY, atMs: 2 },
  ],
  'interlocutor.usage': [{ usage: { promptTokens: 3 } }],
  'interlocutor.failed': [{ message: 'socket closed' }],
};
