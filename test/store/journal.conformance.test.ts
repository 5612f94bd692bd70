import { afterEach, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { JournalRecorder } from '../../core/journal/recorder.js';
import { JournalStore } from '../../core/journal/store.js';
import type { JournalStep } from '../../core/journal/step.js';
import { beforeEffectLeaves } from '../../core/journal/durable.js';
import { Runtime } from '../../core/runtime.js';
import { ENGINES, engineFixtures } from '../support/stores.js';

/**
 * The conversation journal on the store port behaves the same on SQLite and Postgres: batches
 * written (a header updated as its conversation goes on, a step written twice kept once), listed
 * latest first and by surface, read back in order, swept by age.
 */
const step = (seq: number, type: string): JournalStep => ({ seq, at: seq * 10, from: seq === 0 ? 'init' : 'edge', event: { type, text: 'é « ü »' }, actions: [{ type: 'say', params: { n: seq } }], invoked: [], state: { a: 'b' }, status: 'active' });
const header = (id: string, surface: string, startedAt: string, steps: number, endedAt: string | null = null) => ({ id, systemId: `sys-${id}`, surface, machine: 'm', startedAt, startMs: 1_700_000_000_000.5, endedAt, lastAt: endedAt ?? startedAt, steps, input: { deviceId: id } });

describe.each(ENGINES)('journal store conformance: $name', (engine) => {
  const fixture = engineFixtures(engine, afterEach);

  describe.skipIf(!engine.ok)(`(${engine.reason})`, () => {
    it('writes batches, lists, reads back in order and sweeps', async () => {
      const f = await fixture();
      const { store } = await f.open();
      const journal = new JournalStore(store);
      await journal.write({ conversations: [header('a', 'skull', '2026-11-01T00:00:00.000Z', 2)], steps: [{ conversationId: 'a', step: step(0, 'xstate.init') }, { conversationId: 'a', step: step(1, 'ai.request') }] });
      // The next flush: one more step, the header ended; a step sent again is kept once.
      await journal.write({ conversations: [header('a', 'skull', '2026-11-01T00:00:00.000Z', 3, '2026-11-01T00:01:00.000Z'), header('b', 'docs', '2026-12-01T00:00:00.000Z', 1)], steps: [{ conversationId: 'a', step: step(1, 'ai.request') }, { conversationId: 'a', step: step(2, 'publish.done') }, { conversationId: 'b', step: step(0, 'xstate.init') }] });
      expect(await journal.list()).toEqual([
        { id: 'b', systemId: 'sys-b', surface: 'docs', machine: 'm', startedAt: '2026-12-01T00:00:00.000Z', endedAt: null, steps: 1 },
        { id: 'a', systemId: 'sys-a', surface: 'skull', machine: 'm', startedAt: '2026-11-01T00:00:00.000Z', endedAt: '2026-11-01T00:01:00.000Z', steps: 3 },
      ]);
      expect((await journal.list({ surface: 'skull' })).map((c) => c.id)).toEqual(['a']);
      const a = (await journal.get('a'))!;
      expect(a).toMatchObject({ startMs: 1_700_000_000_000.5, input: { deviceId: 'a' } });
      expect(a.steps).toEqual([step(0, 'xstate.init'), step(1, 'ai.request'), step(2, 'publish.done')]);
      expect(await journal.get('nope')).toBeUndefined();
      expect(await journal.bytesOf('a')).toBeGreaterThan(100);
      expect(await journal.sweep(30, new Date('2026-12-15T00:00:00Z'))).toBe(1);
      expect((await journal.list()).map((c) => c.id)).toEqual(['b']);
      expect(await journal.get('a')).toBeUndefined();
    });

    it('the durable path: steps written before an effect leaves, the step in progress as partial, then whole', async () => {
      const f = await fixture();
      const { store } = await f.open();
      const journal = new JournalStore(store);
      expect(journal.synchronous).toBe(engine.name === 'sqlite');
      const runtime = new Runtime();
      // No batch during the test: only the writes made before an effect leaves (and the close) count.
      const recorder = new JournalRecorder(runtime, { store: journal, flushMs: 3_600_000 }).start();
      let durable: Promise<void> | undefined;
      // An effect leaving in the middle of its step, as an edge does it (a reply handed to a socket).
      const machine = setup({ actions: { say: () => { durable = beforeEffectLeaves(); } } }).createMachine({
        initial: 'idle',
        states: { idle: { on: { go: { target: 'said', actions: 'say' } } }, said: { on: { go: { actions: 'say' } } } },
      });
      const ref = runtime.start('m', 'sys-durable', machine);
      const id = recorder.idOf('sys-durable')!;
      ref.send({ type: 'go' });
      // SQLite: written before the effect went on (nothing to await); Postgres: once the promise resolves.
      if (engine.name === 'sqlite') expect(durable).toBeUndefined();
      await durable;
      let steps = (await journal.get(id))!.steps;
      expect(steps.map((s) => [s.seq, s.event.type, s.status, s.state])).toEqual([[0, 'xstate.init', 'active', 'idle'], [1, 'go', 'partial', null]]);
      expect(steps[1]!.actions.map((a) => a.type)).toEqual(['say']);
      ref.send({ type: 'go' });
      await durable;
      steps = (await journal.get(id))!.steps;
      expect(steps.map((s) => [s.seq, s.status, s.state])).toEqual([[0, 'active', 'idle'], [1, 'active', 'said'], [2, 'partial', null]]);
      // The header, stored at the first write, waits for the batch; the count is read from the steps.
      expect((await journal.list()).find((c) => c.id === id)?.steps).toBe(3);
      runtime.shutdown();
      await recorder.close();
      steps = (await journal.get(id))!.steps;
      expect(steps.map((s) => [s.seq, s.status, s.state])).toEqual([[0, 'active', 'idle'], [1, 'active', 'said'], [2, 'active', 'said']]);
    });
  });
});
