import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CorrectionStore } from '../../actors/corrections/correctionsStore.js';
import { autreReview, candidatePatterns } from '../../actors/corrections/patterns.js';
import { assembleReport } from '../../actors/corrections/assemble.js';
import type { Production } from '../../prompts/corrections/tasks.js';
import type { ReportErrorWithOrigin } from '../../machines/correctionReport.js';
import { ChatConfigStore } from '../../actors/docs/chatConfigStore.js';
import type { ChatSettings } from '../../machines/chatContract.js';
import { AdminSessionStore, loginLimiter } from '../../core/admin/adminStore.js';
import { silentLogger } from '../../core/log.js';
import { PORTABLE_MIGRATIONS } from '../support/migrations.js';
import { ENGINES, engineFixtures } from '../support/stores.js';

/**
 * The store conformance suite: every store on the port behaves the same on SQLite and Postgres,
 * and two instances on one database see each other's writes (what several `palabre serve`
 * processes behind a load balancer rely on).
 */
const production: Production = { epreuve: 'EE', tache: 'EE_T1', consigne: 'Écrivez un message.', texte: 'Je sais pas si je viens.' };
const err = (code: string, critere = 'competence_grammaticale', description: string | null = null): ReportErrorWithOrigin =>
  ({ code, critere: critere as ReportErrorWithOrigin['critere'], description, extrait: 'Je sais pas', correction: '-', origine: 'modele' });
const settings: ChatSettings = { model: 'claude-haiku-4-5', k: 3, threshold: 0.2, confident: 0.6, temperature: 0, maxTokens: 300, historyTurns: 2 };

function report(codes: string[]) {
  const r = assembleReport({ production, findings: [], fallback: { reason: 'offline_provider' } });
  r.erreurs = codes.map((c) => (c === 'autre' ? err('autre', 'competence_lexicale', 'tournure familière') : err(c)));
  return r;
}

describe.each(ENGINES)('store conformance: $name', (engine) => {
  const fixture = engineFixtures(engine, afterEach);

  describe.skipIf(!engine.ok)(`(${engine.reason})`, () => {
    it('migrations: applied once, a second instance (or a restart) applies nothing and starts', async () => {
      const f = await fixture();
      const a = await f.open();
      const b = await f.open();
      expect(a.store.dialect).toBe(engine.name);
      for (const s of [a.store, b.store]) expect(await s.ping()).toBeGreaterThanOrEqual(0);
      const versions = await a.store.db.withTables<{ schema_migrations: { version: number; name: string } }>()
        .selectFrom('schema_migrations').select('version').where('name', '!=', 'core_kv').orderBy('version').execute();
      expect(versions.map((v) => Number(v.version))).toEqual(PORTABLE_MIGRATIONS.map((m) => m.version).sort((x, y) => x - y));
    });

    it('corrections: save, get, count; a failed save leaves nothing', async () => {
      const { store } = await (await fixture()).open();
      const corrections = new CorrectionStore(store);
      const id = await corrections.save({ candidateId: 'c1', production, report: report(['negation_incomplete', 'autre']), meta: { via: 'test' } });
      const got = await corrections.get(id);
      expect(got).toMatchObject({ id, candidateId: 'c1', kind: 'EE_T1', texte: production.texte, meta: { via: 'test' }, audioPath: null });
      expect(got?.report.erreurs.map((e) => e.code)).toEqual(['negation_incomplete', 'autre']);
      expect(await corrections.count()).toBe(1);
      expect(await corrections.get('missing')).toBeUndefined();
      // An error row that breaks a constraint (critere NOT NULL) rolls the production back too.
      const bad = report(['x']);
      (bad.erreurs[0] as { critere: unknown }).critere = null;
      await expect(corrections.save({ candidateId: 'c1', production, report: bad })).rejects.toThrow();
      expect(await corrections.count()).toBe(1);
    });

    it('patterns: a correction written through one instance counts in patterns read through another', async () => {
      const f = await fixture();
      const a = new CorrectionStore((await f.open()).store);
      const b = new CorrectionStore((await f.open()).store);
      const codes = [['negation_incomplete'], [], ['negation_incomplete', 'anglicisme'], ['anglicisme'], ['negation_incomplete']];
      for (const [i, c] of codes.entries()) {
        await (i % 2 === 0 ? a : b).save({ candidateId: 'p1', production, report: report(c), createdAt: `2026-01-0${i + 1}T10:00:00.000Z` });
      }
      const p = await candidatePatterns(b, 'p1');
      expect(p.productions).toBe(5);
      expect(p.confirmed.map((c) => c.code)).toEqual(['negation_incomplete']);
      // Same millisecond: the later save is the newer one on both engines (rowid / seq).
      const same = '2026-02-01T10:00:00.000Z';
      const first = await a.save({ candidateId: 'p2', production, report: report([]), createdAt: same });
      const second = await b.save({ candidateId: 'p2', production, report: report([]), createdAt: same });
      expect((await a.recentCodes('p2', 5)).map((r) => r.id)).toEqual([second, first]);
      for (let i = 0; i < 3; i++) await a.save({ candidateId: 'p3', production, report: report(['autre']) });
      expect(await autreReview(b)).toMatchObject([{ count: 3, representative: 'tournure familière' }]);
    });

    it('chat configuration: saved on one instance, applied on the other within a second (notify, no polling)', async () => {
      const f = await fixture();
      const { store: sa } = await f.open();
      const a = new ChatConfigStore(sa);
      // On SQLite "the other instance" is a second store object on the same process bus.
      const b = new ChatConfigStore(engine.name === 'sqlite' ? sa : (await f.open()).store);
      await Promise.all([a.ready, b.ready]);
      expect(b.get()).toBeUndefined();
      const t0 = Date.now();
      await a.save(settings);
      expect(a.get()?.settings).toEqual(settings);
      await vi.waitFor(() => expect(b.get()?.settings).toEqual(settings), { timeout: 1000, interval: 5 });
      expect(Date.now() - t0).toBeLessThan(1000);
      await b.reset();
      await vi.waitFor(() => expect(a.get()).toBeUndefined(), { timeout: 1000, interval: 5 });
      a.close();
      b.close();
    });

    // Postgres only (SQLite notifies in-process, there is no connection to lose).
    if (engine.name === 'postgres') it('chat configuration: a LISTEN connection that is killed reconnects and re-reads (no change lost)', async () => {
      const f = await fixture();
      const x = await f.open();
      const a = new ChatConfigStore(x.store);
      const b = new ChatConfigStore((await f.open()).store);
      await Promise.all([a.ready, b.ready]);
      // Kill every LISTEN backend of this database (both instances' listeners), then change on B
      // at once: A may miss the notify, and must catch up when its listener is back.
      const killed = await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`.execute(x.store.db);
      expect(killed.rows.length).toBeGreaterThanOrEqual(2);
      await b.save({ ...settings, k: 9 });
      await vi.waitFor(() => expect(a.get()?.settings.k).toBe(9), { timeout: 5000, interval: 20 });
      a.close();
      b.close();
    });

    it('admin sessions: created on one instance, valid on the other until they expire or are removed', async () => {
      const f = await fixture();
      const a = new AdminSessionStore((await f.open()).store);
      const b = new AdminSessionStore((await f.open()).store);
      const now = 1_800_000_000_000;
      await a.insert('h1', 'csrf1', now, now + 1000);
      expect(await b.find('h1', now + 10)).toEqual({ csrf: 'csrf1' });
      expect(await b.find('h1', now + 1000)).toBeUndefined();
      await b.purge(now + 1000);
      await a.insert('h2', 'csrf2', now, now + 5000);
      await b.remove('h2');
      expect(await a.find('h2', now)).toBeUndefined();
    });

    it('login throttle: failures counted on one instance block on the other', async () => {
      const f = await fixture();
      const logger = silentLogger();
      const [x, y] = [await f.open(), await f.open()];
      const onA = await loginLimiter({ ...x, tableName: 'admin_login_failures_by_account', points: 3, durationS: 600, logger });
      const onB = await loginLimiter({ ...y, tableName: 'admin_login_failures_by_account', points: 3, durationS: 600, logger });
      for (let i = 0; i < 3; i++) await onA.consume('admin');
      await expect(onB.consume('admin')).rejects.toMatchObject({ remainingPoints: 0 });
      expect((await onB.get('admin'))?.consumedPoints).toBeGreaterThanOrEqual(3);
    });
  });
});
