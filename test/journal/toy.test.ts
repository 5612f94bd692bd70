import { describe, expect, it } from 'vitest';
import { assign, fromPromise, setup, SimulatedClock } from 'xstate';
import { openStore } from '../../core/store/db.js';
import { sqliteStore } from '../../core/store/sqlStore.js';
import { JOURNAL_MIGRATIONS, JournalRecorder, JournalStore, replayJournal } from '../../core/journal/index.js';
import { Runtime } from '../../core/runtime.js';

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

describe('journal on a toy chart', () => {
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
});
