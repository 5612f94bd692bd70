import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock, type AnyMachineSnapshot } from 'xstate';
import { Runtime } from '../../core/runtime.js';
import { t2liveMachine, type InterlocutorInput, type ToInterlocutor, type EvaluateInput, type Graded, type SaveInput, type SessionFacts, type SubjectSummary, type T2Context, type T2Emitted, type T2Input } from '../../machines/t2live.js';
import { runModel } from '../harness/index.js';
import { expectT2, type T2World } from './t2Oracle.js';

/** Model-based test of the `t2live` chart: every generated path replayed on an actor of the real runtime. */
const input: T2Input = { sessionId: 's1', sujetId: 'club-de-sport', mode: 'audio', examMs: 330_000, warningMs: 30_000, idleMs: 60_000, connectMs: 15_000 };
const subject = { id: 'club-de-sport', titre: 'Club', consigne: 'Renseignez-vous.', role: 'un employé' };
const facts = { audioPath: '/tmp/a.wav', audioBytes: 10, rules: { replies: 1 }, usage: {} };
const REPLY = 'Le club est ouvert de six heures à vingt-trois heures en semaine, et de huit heures à vingt heures le week-end.';

function serialize(s: AnyMachineSnapshot): string {
  const c = s.context as T2Context;
  const last = c.transcript[c.transcript.length - 1];
  return JSON.stringify({
    v: s.value,
    st: s.status,
    spoke: c.candidateSpoke,
    said: c.transcript.some((t) => t.speaker === 'candidate' && t.text.trim().length > 0),
    open: last && !last.final ? last.speaker : null,
    // An open turn with nothing but blanks is dropped when the dialogue ends: its own vertex.
    // A turn of nothing but blanks (dropped when the dialogue ends): its own vertices, so that a
    // session holding one is also finished and graded along some path.
    blank: c.transcript.some((t) => t.text.trim() === ''),
    // One turn or more (capped): fragments joined into one turn and a second turn are told apart.
    turns: Math.min(c.transcript.length, 2),
    err: c.error?.code ?? null,
    graded: c.graded !== null,
    facts: c.facts !== null,
    cand: c.candidateId !== null,
    end: c.endReason,
  });
}

/** The interlocutor stand-in records what it is sent; its own events are the path's steps. */
let world: T2World = { emitted: [], toInterlocutor: [], interlocutors: [], monitored: [] };
const interlocutor = fromCallback<ToInterlocutor, InterlocutorInput>(({ receive, input: opened }) => {
  world.interlocutors.push(opened);
  receive((event) => world.toInterlocutor.push(event));
});
const wiredForModel = t2liveMachine.provide({
  actors: { interlocutor },
  actions: { monitorReply: (_, reply: { text: string; candidateSpokeBefore: boolean }) => void world.monitored.push(reply) },
});

const idleFirst = (snap: AnyMachineSnapshot): boolean => {
  const c = snap.context as T2Context;
  return c.idleMs < c.examMs;
};

describe('t2live model', () => {
  it('replays every generated path on the runtime and covers every state and transition', async () => {
    const { failures, paths, coverage } = await runModel({
      name: 't2live',
      machine: wiredForModel,
      controlled: ['authorize', 'loadSubject', 'finishSession', 'evaluate', 'save'],
      oracle: expectT2,
      // Timers race in real time but not in the graph: each variant lets only the timer that
      // really fires first be offered (idle shorter than the exam, or longer).
      variants: [
        { name: 'idle 60 s before the exam ends', input: () => input },
        { name: 'exam 5 min 30 s before idle', input: () => ({ ...input, idleMs: 600_000 }) },
      ],
      serializeState: serialize,
      simplePaths: false,
      events: {
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
        'xstate.after.idleTimeout.t2live.session.live.idle.watching': (snap) => (idleFirst(snap) ? [{}] : []),
        'xstate.after.untilWarning.t2live.session.live.exam.running': (snap) => (idleFirst(snap) ? [] : [{}]),
        'xstate.after.warningToEnd.t2live.session.live.exam.warned': (snap) => (idleFirst(snap) ? [] : [{}]),
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
      },
      start: ({ machine, input: i, clock, inspect, onCleanup }) => {
        const runtime = new Runtime({ clock });
        const off = runtime.onInspect(inspect);
        onCleanup(() => off());
        const systemId = `t2:${String((i as T2Input).sessionId)}`;
        world = { emitted: [], toInterlocutor: [], interlocutors: [], monitored: [] };
        const observed = world;
        // Stopped through the runtime, as the transport does (a child cannot be stopped directly).
        const actor = runtime.start('t2live', systemId, machine, i);
        actor.on('*', (e) => observed.emitted.push(e as T2Emitted));
        return { actor: actor as never, stop: () => runtime.shutdown(), world: observed };
      },
      // Everything the vertex identity keeps (the transcript itself is abstracted to who spoke and
      // which turn is open), so model and actor must agree on all of it.
      project: serialize,
    });
    expect(failures).toEqual([]);
    expect(paths.length).toBeGreaterThan(20);
    expect(coverage.states.uncovered).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
    expect(coverage.oracleChecks).toBeGreaterThan(paths.length * 10);
  });
});

/** The exam timer, the idle timeout and a disconnect, on simulated time. */
function wired(clock: SimulatedClock, overrides: Partial<T2Input> = {}) {
  const emitted: T2Emitted[] = [];
  const machine = t2liveMachine.provide({
    actors: {
      authorize: fromPromise(async () => ({ sub: 'cand', features: ['oral_t2_live'] })),
      loadSubject: fromPromise<SubjectSummary | null, { sujetId: string }>(async () => subject),
      interlocutor: fromCallback(({ sendBack }) => {
        sendBack({ type: 'interlocutor.ready' });
      }),
      finishSession: fromPromise<SessionFacts, { sessionId: string }>(async () => facts),
      evaluate: fromPromise<Graded, EvaluateInput>(async () => ({ report: { ok: true }, productionId: 'p1' })),
      save: fromPromise<{ audioUrl: string | null }, SaveInput>(async () => ({ audioUrl: '/a.wav' })),
    },
  });
  const actor = createActor(machine, { input: { ...input, ...overrides }, clock });
  actor.on('*', (e) => emitted.push(e as T2Emitted));
  actor.start();
  return { actor, emitted };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

describe('t2live timers on SimulatedClock', () => {
  it('warns 30 s before the end of the 5 min 30 s exam, then ends by itself and reports', async () => {
    const clock = new SimulatedClock();
    const { actor, emitted } = wired(clock, { idleMs: 10 * 60_000 });
    await settle();
    expect(actor.getSnapshot().matches({ session: 'live' })).toBe(true);
    actor.send({ type: 'interlocutor.transcript', speaker: 'candidate', text: 'Bonjour', atMs: 1 });
    clock.increment(299_999);
    await settle();
    expect(emitted.some((e) => e.type === 'client.warning')).toBe(false);
    clock.increment(1);
    await settle();
    expect(emitted.find((e) => e.type === 'client.warning')).toMatchObject({ remainingMs: 30_000 });
    clock.increment(29_999);
    await settle();
    expect(actor.getSnapshot().matches({ session: 'live' })).toBe(true);
    clock.increment(1);
    await settle();
    expect(actor.getSnapshot().value).toBe('ended');
    expect(actor.getSnapshot().context.endReason).toBe('time');
    expect(emitted.filter((e) => e.type === 'client.report' || e.type === 'client.close').map((e) => e.type)).toEqual(['client.report', 'client.close']);
  });

  it('the idle timeout restarts on candidate activity, not on audio alone, then ends the session', async () => {
    const clock = new SimulatedClock();
    const { actor } = wired(clock, { idleMs: 60_000 });
    await settle();
    actor.send({ type: 'interlocutor.transcript', speaker: 'candidate', text: 'Bonjour', atMs: 1 });
    for (let i = 0; i < 5; i++) {
      clock.increment(50_000);
      actor.send({ type: 'client.activity' });
      actor.send({ type: 'client.audio', pcm: new Uint8Array(2) });
      await settle();
    }
    expect(actor.getSnapshot().matches({ session: 'live' })).toBe(true);
    // Audio frames alone (the transport throttles activity) do not re-arm the timer.
    clock.increment(30_000);
    actor.send({ type: 'client.audio', pcm: new Uint8Array(2) });
    clock.increment(29_999);
    await settle();
    expect(actor.getSnapshot().matches({ session: 'live' })).toBe(true);
    clock.increment(1);
    await settle();
    expect(actor.getSnapshot().value).toBe('ended');
    expect(actor.getSnapshot().context.endReason).toBe('idle');
  });

  it('a disconnect mid-session goes on to evaluate and save what exists', async () => {
    const clock = new SimulatedClock();
    const { actor, emitted } = wired(clock);
    await settle();
    actor.send({ type: 'interlocutor.transcript', speaker: 'candidate', text: 'Bonjour', atMs: 1 });
    actor.send({ type: 'interlocutor.transcript', speaker: 'interlocutor', text: REPLY, atMs: 2 });
    actor.send({ type: 'client.disconnected' });
    await settle();
    expect(actor.getSnapshot().value).toBe('ended');
    expect(actor.getSnapshot().context.endReason).toBe('disconnected');
    expect(actor.getSnapshot().context.transcript.map((t) => [t.speaker, t.final])).toEqual([['candidate', true], ['interlocutor', true]]);
    expect(emitted.some((e) => e.type === 'client.report')).toBe(true);
  });
});
