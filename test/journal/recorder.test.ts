import { describe, expect, it } from 'vitest';
import { assign, fromPromise, setup, SimulatedClock } from 'xstate';
import { openStore } from '../../core/store/db.js';
import { sqliteStore } from '../../core/store/sqlStore.js';
import { JOURNAL_MIGRATIONS, JournalStore } from '../../core/journal/store.js';
import { JournalRecorder } from '../../core/journal/recorder.js';
import { replayJournal } from '../../core/journal/replay.js';
import { Runtime } from '../../core/runtime.js';
import { divergenceText } from '../../cli/journalText.js';

const toy = setup({
  types: { input: {} as { now: () => number; prompt: string }, context: {} as { n: number; prompt: string; at: number } },
  actors: { ask: fromPromise<string, { q: string }>(async () => 'real') },
  actions: { say: (_, _p: { text: string }) => {} },
  guards: { short: ({ event }) => (event as { output?: string }).output === 'ok' },
}).createMachine({
  context: ({ input }) => ({ n: 0, prompt: input.prompt, at: input.now() }),
  initial: 'idle',
  states: {
    idle: { on: { go: 'asking' } },
    asking: {
      invoke: { src: 'ask', input: ({ context, event }) => ({ q: `${context.prompt}: ${(event as { text?: string }).text}` }), onDone: [{ guard: 'short', target: 'waiting', actions: [{ type: 'say', params: ({ event }) => ({ text: event.output }) }] }, { target: 'idle' }] },
    },
    waiting: { after: { 1000: { target: 'idle', actions: assign({ n: ({ context }) => context.n + 1 }) } } },
  },
});

describe('journal on a small chart', () => {
  it('records, replays the same, and names a changed prompt', async () => {
    const clock = new SimulatedClock();
    const rt = new Runtime({ clock });
    const db = openStore({ path: ':memory:' });
    const store = new JournalStore(sqliteStore(db, JOURNAL_MIGRATIONS));
    const rec = new JournalRecorder(rt, { store, flushMs: 60_000 }).start();
    const ref = rt.start('toy', 'toy-1', toy.provide({ actors: { ask: fromPromise(async () => 'ok') } }), { now: () => clock.now(), prompt: 'P1' });
    ref.send({ type: 'go', text: 'hi' });
    await new Promise((r) => setTimeout(r, 5));
    clock.increment(1000);
    rt.stop('toy-1');
    await rec.flush();
    const [summary] = await store.list();
    const j = (await store.get(summary!.id))!;
    expect(j.steps.map((s) => `${s.from} ${s.event.type}`)).toEqual(['init xstate.init', 'edge go', 'child:0.(machine).asking xstate.done.actor.0.(machine).asking', 'self xstate.after.1000.(machine).waiting']);
    const r1 = replayJournal(j, { machine: toy });
    expect(r1).toMatchObject({ same: true, steps: 4 });
    const changed = replayJournal({ ...j, input: { ...(j.input as object), prompt: 'P2' } }, { machine: toy });
    expect(changed.same).toBe(false);
    await rec.close();
  });

  it('writes in batches, not per step: nothing reaches the store before a flush or the end', async () => {
    const clock = new SimulatedClock();
    const rt = new Runtime({ clock });
    const db = openStore({ path: ':memory:' });
    const store = new JournalStore(sqliteStore(db, JOURNAL_MIGRATIONS));
    const rec = new JournalRecorder(rt, { store, flushMs: 3_600_000 }).start();
    const ref = rt.start('toy', 'toy-2', toy.provide({ actors: { ask: fromPromise(async () => 'no') } }), { now: () => clock.now(), prompt: 'P' });
    for (let i = 0; i < 5; i++) ref.send({ type: 'go', text: String(i) });
    await new Promise((r) => setTimeout(r, 5));
    expect(db.prepare('SELECT count(*) AS n FROM journal_steps').get()).toEqual({ n: 0 });
    rt.stop('toy-2');
    await rec.flush();
    const rows = db.prepare('SELECT count(*) AS n FROM journal_steps').get() as { n: number };
    expect(rows.n).toBeGreaterThanOrEqual(3);
    expect((await store.list())[0]).toMatchObject({ machine: 'toy', steps: rows.n });
    await rec.close();
  });

  it('never stores a secret, and stores audio as its length', async () => {
    const rt = new Runtime();
    const db = openStore({ path: ':memory:' });
    const store = new JournalStore(sqliteStore(db, JOURNAL_MIGRATIONS));
    const rec = new JournalRecorder(rt, { store }).start();
    const sink = setup({}).createMachine({ on: { '*': {} } });
    const ref = rt.start('sink', 'sink-1', sink, { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl', note: 'key sk-proj-ABCDEFGH12345678 in text' });
    ref.send({ type: 'audio', chunk: Buffer.alloc(640), headers: { authorization: 'Bearer abcdefghijkl' }, apiKey: 'AIzaSyA-1234567890123456789012' });
    rt.stop('sink-1');
    await rec.flush();
    const dump = JSON.stringify(db.prepare('SELECT * FROM journal_steps').all()) + JSON.stringify(db.prepare('SELECT * FROM journal_conversations').all());
    for (const secret of ['eyJhbGciOiJIUzI1NiJ9', 'sk-proj-ABCDEFGH', 'abcdefghijkl', 'AIzaSyA']) expect(dump).not.toContain(secret);
    const j = (await store.get((await store.list())[0]!.id))!;
    expect(j.steps[1]!.event).toMatchObject({ type: 'audio', chunk: { $bytes: 640 }, apiKey: '[redacted]', headers: { authorization: '[redacted]' } });
    await rec.close();
  });

  it('the retention sweep deletes conversations whose last step is older than JOURNAL_RETENTION_DAYS', async () => {
    const db = openStore({ path: ':memory:' });
    const store = new JournalStore(sqliteStore(db, JOURNAL_MIGRATIONS));
    const header = (id: string, lastAt: string) => ({ id, systemId: id, surface: 's', machine: 'm', startedAt: lastAt, startMs: 0, endedAt: lastAt, lastAt, steps: 1, input: null });
    const step = { seq: 0, at: 0, from: 'init', event: { type: 'xstate.init' }, actions: [], invoked: [], state: 'a', status: 'active' };
    await store.write({ conversations: [header('old', '2026-10-01T00:00:00.000Z'), header('recent', '2026-11-25T00:00:00.000Z')], steps: [{ conversationId: 'old', step }, { conversationId: 'recent', step }] });
    expect(await store.sweep(30, new Date('2026-12-02T00:00:00Z'))).toBe(1);
    expect((await store.list()).map((c) => c.id)).toEqual(['recent']);
    expect(db.prepare('SELECT conversation_id FROM journal_steps').pluck().all()).toEqual(['recent']);
    // The recorder runs it when it starts.
    const rec = new JournalRecorder(new Runtime(), { store, retentionDays: 3, wallClock: () => new Date('2026-12-02T00:00:00Z') }).start();
    await expect.poll(async () => (await store.list()).length).toBe(0);
    await rec.close();
  });

  it('replays timers on the replay clock: a changed delay or a timer no longer set is the first differing step', async () => {
    const clock = new SimulatedClock();
    const rt = new Runtime({ clock });
    const db = openStore({ path: ':memory:' });
    const store = new JournalStore(sqliteStore(db, JOURNAL_MIGRATIONS));
    const rec = new JournalRecorder(rt, { store, flushMs: 60_000 }).start();
    const timed = setup({ delays: { wait: 1000 } }).createMachine({ initial: 'a', states: { a: { on: { go: 'b' } }, b: { after: { wait: 'c' } }, c: { on: { go: 'a' } } } });
    const ref = rt.start('timed', 'timed-1', timed);
    ref.send({ type: 'go' });
    clock.increment(1000);
    ref.send({ type: 'go' });
    rt.stop('timed-1');
    await rec.flush();
    const j = (await store.get((await store.list())[0]!.id))!;
    expect(j.steps.map((s) => [s.from, s.event.type, s.at, s.state])).toEqual([['init', 'xstate.init', 0, 'a'], ['edge', 'go', 0, 'b'], ['self', 'xstate.after.wait.(machine).b', 1000, 'c'], ['edge', 'go', 1000, 'a']]);
    expect(replayJournal(j, { machine: timed })).toMatchObject({ same: true, steps: 4 });
    // The delay changed: the step that arms the timer says so (its raise carries the delay).
    const longer = replayJournal(j, { machine: timed.provide({ delays: { wait: 5000 } }) });
    expect(longer.divergence).toMatchObject({ step: 1, field: 'actions', path: '[0].params.delay', expected: 1000, got: 5000 });
    // No timer any more: the recorded timer step has no counterpart.
    const noTimer = setup({}).createMachine({ initial: 'a', states: { a: { on: { go: 'b' } }, b: { on: { go: 'c' } }, c: { on: { go: 'a' } } } });
    const gone = replayJournal(j, { machine: noTimer });
    expect(gone.divergence).toMatchObject({ step: 1, field: 'actions' });
    // A recorded timer with no timer pending today: nothing processed at that step.
    const orphan = replayJournal({ ...j, steps: [j.steps[0]!, j.steps[2]!] }, { machine: timed });
    expect(orphan.divergence).toMatchObject({ step: 1, expected: 'xstate.after.wait.(machine).b', gotStep: undefined });
    expect(divergenceText(j.id, 2, orphan.divergence!)).toContain("today's chart took no step");
    await rec.close();
  });

  it('an actor\'s error is recorded with its fields and replayed as an Error the chart can read', async () => {
    const rt = new Runtime();
    const db = openStore({ path: ':memory:' });
    const store = new JournalStore(sqliteStore(db, JOURNAL_MIGRATIONS));
    const rec = new JournalRecorder(rt, { store }).start();
    const failing = setup({
      actors: { call: fromPromise<string>(async () => 'x') },
      actions: { report: (_, _p: { message: string; kind: string }) => {} },
      guards: { rateLimited: ({ event }) => { const error = (event as unknown as { error?: unknown }).error; return error instanceof Error && (error as Error & { status?: number }).status === 429; } },
    }).createMachine({
      initial: 'calling',
      states: {
        calling: { invoke: { src: 'call', onError: [{ guard: 'rateLimited', target: 'waiting', actions: { type: 'report', params: ({ event }) => ({ message: (event.error as Error).message, kind: (event.error as Error).name }) } }, { target: 'failed' }] } },
        waiting: {},
        failed: {},
      },
    });
    rt.start('failing', 'f-1', failing.provide({ actors: { call: fromPromise<string>(async () => { throw Object.assign(new Error('too many requests'), { name: 'LlmError', status: 429 }); }) } }));
    await new Promise((r) => setTimeout(r, 5));
    rt.stop('f-1');
    await rec.flush();
    const j = (await store.get((await store.list())[0]!.id))!;
    expect(j.steps[1]).toMatchObject({ from: 'child:0.(machine).calling', event: { error: { $error: 'LlmError', message: 'too many requests', status: 429 } }, state: 'waiting' });
    expect(replayJournal(j, { machine: failing })).toMatchObject({ same: true, steps: 2 });
    await rec.close();
  });
});
