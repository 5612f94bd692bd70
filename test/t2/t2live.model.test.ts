import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import { Runtime } from '../../core/runtime.js';
import { t2liveMachine, type EvaluateInput, type Graded, type SaveInput, type SessionFacts, type SubjectSummary, type T2Emitted, type T2Input } from '../../machines/t2live.js';
import { runModel } from '../harness/index.js';
import { expectT2 } from './t2Oracle.js';
import { controlled, facts, input, recorder, REPLY, samples, serialize, subject, variants, wiredForModel } from './t2ModelSpec.js';

/** Model-based test of the `t2live` chart: every generated path replayed on an actor of the real runtime. */
describe('t2live model', () => {
  it('replays every generated path on the runtime and covers every state and transition', async () => {
    const { failures, paths, coverage } = await runModel({
      name: 't2live',
      machine: wiredForModel,
      controlled,
      oracle: expectT2,
      variants,
      serializeState: serialize,
      simplePaths: false,
      events: samples,
      start: ({ machine, input: i, clock, inspect, onCleanup }) => {
        const runtime = new Runtime({ clock });
        const off = runtime.onInspect(inspect);
        onCleanup(() => off());
        const systemId = `t2:${String((i as T2Input).sessionId)}`;
        const observed = recorder.reset();
        // Stopped through the runtime, as the transport does (a child cannot be stopped directly).
        const actor = runtime.start('t2live', systemId, machine, i);
        actor.on('*', (e) => observed.emitted.push(e as T2Emitted));
        observed.tags = () => ({ awaitingClient: actor.getSnapshot().hasTag('awaitingClient'), resumable: actor.getSnapshot().hasTag('resumable') });
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
  }, 300_000); // thousands of paths: seconds on an idle machine, 74–85 s with two cores shared by other work
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

describe('t2live: a dropped socket waits T2_RESUME_GRACE_MS for its candidate (SimulatedClock)', () => {
  const grace = (clock: SimulatedClock) => ({ graceMs: 30_000, now: () => clock.now(), idleMs: 600_000 });

  it('a reconnect within the grace period resumes: transcript replayed, exam clock kept running', async () => {
    const clock = new SimulatedClock();
    const { actor, emitted } = wired(clock, grace(clock));
    await settle();
    actor.send({ type: 'interlocutor.transcript', speaker: 'candidate', text: 'Bonjour', atMs: 1 });
    actor.send({ type: 'interlocutor.transcript', speaker: 'interlocutor', text: REPLY, atMs: 2 });
    actor.send({ type: 'interlocutor.turnComplete' });
    clock.increment(100_000);
    actor.send({ type: 'client.disconnected' });
    await settle();
    expect(actor.getSnapshot().hasTag('awaitingClient')).toBe(true);
    expect(actor.getSnapshot().matches({ session: { live: { link: 'away' } } })).toBe(true);
    // The interlocutor goes on meanwhile: what it says is kept for the replay.
    actor.send({ type: 'interlocutor.transcript', speaker: 'candidate', text: 'Et le prix', atMs: 3 });
    clock.increment(29_999);
    await settle();
    actor.send({ type: 'client.resumed' });
    await settle();
    expect(actor.getSnapshot().matches({ session: { live: { link: 'present' } } })).toBe(true);
    const resume = emitted.find((e) => e.type === 'client.resume');
    expect(resume).toMatchObject({ state: 'listening', remainingMs: 330_000 - 129_999 });
    expect(resume?.type === 'client.resume' && resume.transcript.map((t) => [t.speaker, t.text, t.final])).toEqual([
      ['candidate', 'Bonjour', true],
      ['interlocutor', REPLY, true],
      ['candidate', 'Et le prix', false],
    ]);
    // The grace timer was cancelled, the exam timer was not: the warning comes at 5 min, the end at 5 min 30 s.
    clock.increment(300_000 - 129_999 - 1);
    await settle();
    expect(actor.getSnapshot().matches({ session: 'live' })).toBe(true);
    expect(emitted.some((e) => e.type === 'client.warning')).toBe(false);
    clock.increment(1);
    await settle();
    expect(emitted.some((e) => e.type === 'client.warning')).toBe(true);
    clock.increment(30_000);
    await settle();
    expect(actor.getSnapshot().value).toBe('ended');
    expect(actor.getSnapshot().context.endReason).toBe('time');
  });

  it('a reconnect while the interlocutor speaks says so, with the reply so far still open', async () => {
    const clock = new SimulatedClock();
    const { actor, emitted } = wired(clock, grace(clock));
    await settle();
    actor.send({ type: 'interlocutor.transcript', speaker: 'candidate', text: 'Bonjour', atMs: 1 });
    actor.send({ type: 'interlocutor.transcript', speaker: 'interlocutor', text: 'Le club ouvre', atMs: 2 });
    actor.send({ type: 'client.disconnected' });
    actor.send({ type: 'client.resumed' });
    await settle();
    const resume = emitted.find((e) => e.type === 'client.resume');
    expect(resume).toMatchObject({ state: 'interlocutor_speaking', remainingMs: 330_000 });
    expect(resume?.type === 'client.resume' && resume.transcript.at(-1)).toMatchObject({ speaker: 'interlocutor', text: 'Le club ouvre', final: false });
  });

  it('past the grace period the session ends as disconnected and is graded', async () => {
    const clock = new SimulatedClock();
    const { actor, emitted } = wired(clock, grace(clock));
    await settle();
    actor.send({ type: 'interlocutor.transcript', speaker: 'candidate', text: 'Bonjour', atMs: 1 });
    actor.send({ type: 'client.disconnected' });
    clock.increment(29_999);
    await settle();
    expect(actor.getSnapshot().matches({ session: 'live' })).toBe(true);
    clock.increment(1);
    await settle();
    expect(actor.getSnapshot().value).toBe('ended');
    expect(actor.getSnapshot().context.endReason).toBe('disconnected');
    expect(emitted.some((e) => e.type === 'client.report')).toBe(true);
    expect(emitted.some((e) => e.type === 'client.resume')).toBe(false);
  });

  it('the exam may end during the grace period: it is graded as time, not disconnected', async () => {
    const clock = new SimulatedClock();
    const { actor } = wired(clock, grace(clock));
    await settle();
    actor.send({ type: 'interlocutor.transcript', speaker: 'candidate', text: 'Bonjour', atMs: 1 });
    clock.increment(300_000);
    await settle();
    clock.increment(20_000);
    actor.send({ type: 'client.disconnected' });
    clock.increment(10_000);
    await settle();
    expect(actor.getSnapshot().value).toBe('ended');
    expect(actor.getSnapshot().context.endReason).toBe('time');
  });

  it('without a grace period (0) a dropped socket finishes at once, as before', async () => {
    const clock = new SimulatedClock();
    const { actor } = wired(clock, { graceMs: 0 });
    await settle();
    actor.send({ type: 'interlocutor.transcript', speaker: 'candidate', text: 'Bonjour', atMs: 1 });
    actor.send({ type: 'client.disconnected' });
    await settle();
    expect(actor.getSnapshot().context.endReason).toBe('disconnected');
  });

  it('under the root: a claim of the same candidate resumes a waiting session (no replace), a resume-only claim with none is refused 4410', async () => {
    const clock = new SimulatedClock();
    const runtime = new Runtime({ clock });
    const emittedBy = (ref: { on: (t: string, fn: (e: unknown) => void) => unknown }): T2Emitted[] => {
      const out: T2Emitted[] = [];
      ref.on('*', (e) => out.push(e as T2Emitted));
      return out;
    };
    const machine = t2liveMachine.provide({
      actors: {
        authorize: fromPromise(async () => ({ sub: 'cand', features: ['oral_t2_live'] })),
        loadSubject: fromPromise<SubjectSummary | null, { sujetId: string }>(async () => subject),
        interlocutor: fromCallback(({ sendBack }) => {
          sendBack({ type: 'interlocutor.ready' });
        }),
      },
    });
    const older = runtime.start('t2live', 't2:older', machine, { ...input, ...grace(clock), sessionId: 'older' });
    const olderOut = emittedBy(older);
    await settle();
    older.send({ type: 'interlocutor.transcript', speaker: 'candidate', text: 'Bonjour', atMs: 1 });
    // While the older one still has its socket, a resume-only claim takes it over (a network drop
    // the server has not seen yet); a fresh claim would replace it.
    const taker = runtime.start('t2live', 't2:taker', machine, { ...input, ...grace(clock), sessionId: 'taker', resumeOnly: true });
    const takerOut = emittedBy(taker);
    await settle();
    expect(takerOut).toContainEqual({ type: 'client.handover', systemId: 't2:older' });
    expect(taker.getSnapshot().value).toBe('handedOver');
    older.send({ type: 'client.disconnected' });
    await settle();
    expect(older.getSnapshot().hasTag('awaitingClient')).toBe(true);
    const fresh = runtime.start('t2live', 't2:fresh', machine, { ...input, ...grace(clock), sessionId: 'fresh' });
    const freshOut = emittedBy(fresh);
    await settle();
    // Same candidate, plain claim, during the grace period: it resumes, the older is not replaced.
    expect(freshOut).toContainEqual({ type: 'client.handover', systemId: 't2:older' });
    expect(older.getSnapshot().context.endReason).toBeNull();
    older.send({ type: 'client.resumed' });
    expect(olderOut.some((e) => e.type === 'client.resume')).toBe(true);
    // Once it ended, a resume-only claim finds nothing (4410) and a plain one starts fresh.
    older.send({ type: 'client.end' });
    await settle();
    expect(older.getSnapshot().status).toBe('done');
    runtime.stop('t2:older');
    const late = runtime.start('t2live', 't2:late', machine, { ...input, ...grace(clock), sessionId: 'late', resumeOnly: true });
    const lateOut = emittedBy(late);
    await settle();
    expect(lateOut).toContainEqual({ type: 'client.close', code: 4410, reason: 'NOTHING_TO_RESUME' });
    const next = runtime.start('t2live', 't2:next', machine, { ...input, ...grace(clock), sessionId: 'next' });
    await settle();
    expect(next.getSnapshot().matches({ session: 'live' })).toBe(true);
    runtime.shutdown();
  });
});
