import { afterEach, describe, expect, it } from 'vitest';
import { chatConfigMigrations } from '../../actors/docs/chatConfigStore.js';
import { compileMigration } from '../../core/store/sqlStore.js';
import { ENGINES, engineFixtures } from '../support/stores.js';

/**
 * Migration 303: the saved high bound `confident` changed meaning (a lexical score before, a
 * learned probability now), so a value saved under the old meaning is dropped from the ChatConfig
 * and from every visitor's overrides — on both engines, the other settings kept as they were.
 */
type Tables = {
  chat_config: { id: number; settings: string; updated_at: string };
  visitor_sessions: { id_hash: string; settings: string; threads: string; created_at: number; updated_at: number };
};

describe.each(ENGINES)('the high bound saved as a score is dropped (migration 303): $name', (engine) => {
  const fixture = engineFixtures(engine, afterEach);

  describe.skipIf(!engine.ok)(`(${engine.reason})`, () => {
    it('removes `confident` from the saved ChatConfig and visitor overrides, keeps everything else', async () => {
      const f = await fixture();
      const { store } = await f.open();
      const db = store.db.withTables<Tables>();
      const saved = { model: 'm', k: 4, threshold: 0.25, confident: 0.5, temperature: 0, maxTokens: 100, historyTurns: 2 };
      await db.insertInto('chat_config').values({ id: 1, settings: JSON.stringify(saved), updated_at: '2026-11-01 00:00:00' }).execute();
      await db.insertInto('visitor_sessions').values([
        { id_hash: 'a', settings: JSON.stringify({ confident: 0.4, k: 7 }), threads: '{}', created_at: 1, updated_at: 1 },
        { id_hash: 'b', settings: '{}', threads: '{}', created_at: 1, updated_at: 1 },
      ]).execute();

      const m303 = chatConfigMigrations.find((m) => m.version === 303)!;
      for (const q of compileMigration(m303, engine.name)) await db.executeQuery(q);

      const { confident: _dropped, ...kept } = saved;
      const config = await db.selectFrom('chat_config').select('settings').executeTakeFirstOrThrow();
      expect(JSON.parse(config.settings)).toEqual(kept);
      const visitors = await db.selectFrom('visitor_sessions').select(['id_hash', 'settings']).orderBy('id_hash').execute();
      expect(visitors.map((v) => [v.id_hash, JSON.parse(v.settings)])).toEqual([['a', { k: 7 }], ['b', {}]]);
    });
  });
});
