import { afterEach, describe, expect, it } from 'vitest';
import { GapStore, gapTopic } from '../../actors/docs/gapStore.js';
import { ENGINES, engineFixtures } from '../support/stores.js';

/** The coverage-gap store (/admin/docs/gaps) behaves the same on SQLite and Postgres: grouping, window, retention. */
describe.each(ENGINES)('docs coverage gaps: $name', (engine) => {
  const fixture = engineFixtures(engine, afterEach);

  describe.skipIf(!engine.ok)(`(${engine.reason})`, () => {
    it('groups questions by their words, counts refused and low, keeps the latest wording; a second instance sees them', async () => {
      const f = await fixture();
      let now = new Date('2026-11-20T10:00:00Z');
      const a = new GapStore((await f.open()).store, { retentionDays: 30, now: () => now });
      await a.record('Comment changer le port HTTP ?', 'fr', 'low');
      now = new Date('2026-11-20T11:00:00Z');
      await a.record('changer port http', 'fr', 'refused');
      await a.record('Who won the 2022 World Cup?', 'en', 'refused');
      const b = new GapStore((await f.open()).store, { retentionDays: 30, now: () => now });
      const groups = await b.groups(7);
      expect(groups).toEqual([
        { topic: gapTopic('changer port http'), question: 'changer port http', count: 2, refused: 1, low: 1, lastAsked: '2026-11-20T11:00:00.000Z' },
        { topic: gapTopic('Who won the 2022 World Cup?'), question: 'Who won the 2022 World Cup?', count: 1, refused: 1, low: 0, lastAsked: '2026-11-20T11:00:00.000Z' },
      ]);
    });

    it('lists only the window asked for, and drops what is past retention at the next record', async () => {
      const f = await fixture();
      const { store } = await f.open();
      let now = new Date('2026-10-01T00:00:00Z');
      const gaps = new GapStore(store, { retentionDays: 30, now: () => now });
      await gaps.record('Quelles sont les nouveautés du RGAA 5 ?', 'fr', 'low');
      now = new Date('2026-10-25T00:00:00Z');
      await gaps.record('claude_desktop_config.json MCP', 'en', 'low');
      expect((await gaps.groups(7)).map((g) => g.question)).toEqual(['claude_desktop_config.json MCP']);
      expect((await gaps.groups(30)).map((g) => g.question).sort()).toEqual(['Quelles sont les nouveautés du RGAA 5 ?', 'claude_desktop_config.json MCP']);
      now = new Date('2026-11-05T00:00:00Z');
      await gaps.record('Quel temps fera-t-il demain ?', 'fr', 'refused');
      await gaps.recordDropped('Combien de temps garder un dossier ?', 'fr', ['Il est ensuite détruit [1].']);
      expect(await gaps.dropped(7)).toEqual([{ question: 'Combien de temps garder un dossier ?', sentence: 'Il est ensuite détruit [1].', at: now.toISOString() }]);
      expect((await gaps.groups(7)).map((g) => g.question)).toEqual(['Quel temps fera-t-il demain ?']);
      const rows = await store.db.withTables<{ docs_gaps: { question: string } }>().selectFrom('docs_gaps').select('question').execute();
      expect(rows.map((r) => r.question).sort()).toEqual(['Combien de temps garder un dossier ?', 'Quel temps fera-t-il demain ?', 'claude_desktop_config.json MCP']);
    });
  });
});
