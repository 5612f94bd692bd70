import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import { AudioPipe } from '../../actors/t2/audioPipe.js';
import { t2liveMachine, type EvaluateInput, type Graded, type SaveInput, type SessionFacts, type SubjectSummary, type T2Input } from '../../machines/t2live.js';

const input: T2Input = { sessionId: 's1', sujetId: 'x', mode: 'audio', examMs: 330_000, warningMs: 30_000, idleMs: 60_000, connectMs: 15_000 };

describe('the audio pipe', () => {
  it('drops audio while closed, and when open forwards before it records, both ways', () => {
    const log: string[] = [];
    const pipe = new AudioPipe({ candidate: (p) => log.push(`rec-cand:${p.length}`), interlocutor: (p) => log.push(`rec-int:${p.length}`) }, () => log.push('error'));
    pipe.attachClient((p) => log.push(`client:${p.length}`));
    const detach = pipe.attachInterlocutor((p, b64) => log.push(`gemini:${p.length}:${b64 ?? '-'}`));
    expect(pipe.candidate(new Uint8Array(2))).toBe(false);
    expect(pipe.interlocutor(new Uint8Array(4))).toBe(false);
    expect(log).toEqual([]);
    pipe.setOpen(true);
    expect(pipe.candidate(new Uint8Array(2), 'AAA=')).toBe(true);
    expect(pipe.interlocutor(new Uint8Array(4))).toBe(true);
    expect(log).toEqual(['gemini:2:AAA=', 'rec-cand:2', 'client:4', 'rec-int:4']);
    detach();
    pipe.candidate(new Uint8Array(6));
    expect(log.at(-1)).toBe('rec-cand:6');
  });

  it('a failing recording is reported once and stops; the audio still flows', () => {
    const errors: string[] = [];
    const sent: number[] = [];
    const pipe = new AudioPipe({ candidate: () => { throw new Error('disk full'); }, interlocutor: () => {} }, (e) => errors.push(e.message));
    pipe.attachInterlocutor((p) => sent.push(p.length));
    pipe.setOpen(true);
    pipe.candidate(new Uint8Array(2));
    pipe.candidate(new Uint8Array(4));
    expect(errors).toEqual(['disk full']);
    expect(sent).toEqual([2, 4]);
  });
});

describe('the t2live chart gates the pipe', () => {
  it('opens it on entering session.live and closes it on leaving', async () => {
    const clock = new SimulatedClock();
    const gate: string[] = [];
    let ready: (() => void) | undefined;
    const machine = t2liveMachine.provide({
      actors: {
        authorize: fromPromise(async () => ({ sub: 'c', features: ['oral_t2_live'] })),
        loadSubject: fromPromise<SubjectSummary | null, { sujetId: string }>(async () => ({ id: 'x', titre: 't', consigne: 'c', role: 'r' })),
        interlocutor: fromCallback(({ sendBack }) => {
          ready = () => sendBack({ type: 'interlocutor.ready' });
        }),
        finishSession: fromPromise<SessionFacts, { sessionId: string }>(async () => ({ audioPath: null, audioBytes: 0, rules: null, usage: null })),
        evaluate: fromPromise<Graded, EvaluateInput>(async () => ({ report: {}, productionId: 'p' })),
        save: fromPromise<{ audioUrl: string | null }, SaveInput>(async () => ({ audioUrl: null })),
      },
      actions: { openAudio: () => void gate.push('open'), closeAudio: () => void gate.push('close') },
    });
    const actor = createActor(machine, { input, clock }).start();
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(actor.getSnapshot().matches({ session: 'connecting' })).toBe(true);
    expect(gate).toEqual([]);
    ready!();
    expect(gate).toEqual(['open']);
    actor.send({ type: 'interlocutor.transcript', speaker: 'candidate', text: 'Bonjour', atMs: 1 });
    expect(gate).toEqual(['open']);
    actor.send({ type: 'client.end' });
    expect(actor.getSnapshot().matches('finishing')).toBe(true);
    expect(gate).toEqual(['open', 'close']);
    actor.stop();
  });
});
