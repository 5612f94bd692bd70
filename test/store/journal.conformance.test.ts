import { afterEach, describe, expect, it } from 'vitest';
import { JournalStore, type JournalStep } from '../../core/journal/index.js';
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
  });
});
