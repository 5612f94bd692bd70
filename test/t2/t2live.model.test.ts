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
