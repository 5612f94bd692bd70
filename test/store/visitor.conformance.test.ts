import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chatSettingsOverridesSchema } from '../../machines/chatSettings.js';
import { PORTABLE_MIGRATIONS } from '../support/migrations.js';
import { openStore } from '../../core/store/db.js';
import { sqliteStore, type Store } from '../../core/store/sqlStore.js';
import { cookieSecret, sign } from '../../core/http/cookies.js';
import { MAX_THREAD, VISITOR_COOKIE, VisitorSessions, type Exchange } from '../../transports/http/session.js';
import { VisitorSessionStore } from '../../transports/http/visitorStore.js';
import { ENGINES, engineFixtures } from '../support/stores.js';

/**
 * Visitor sessions (/assistant settings, both chat threads) on the store port: the same on
 * SQLite and Postgres, and a browser's session written through one instance is the one another
 * instance reads (same SESSION_SECRET), so the balancer needs no sticky cookie for them.
 */
const SECRET = 'visitor-conformance-secret-0123456789';
const DAY = 24 * 3600_000;

/** What the class reads of a request and writes to a response: the Cookie and Set-Cookie headers. */
class Browser {
  cookie = '';
  req() {
    return { headers: this.cookie ? { cookie: this.cookie } : {}, secure: false };
  }
  res() {
    return {
      append: (name: string, value: string | string[]) => {
        expect(name).toBe('Set-Cookie');
        this.cookie = String(value).split(';')[0]!;
        return this.res() as never;
      },
    };
  }
}

const exchange = (n: number): Exchange => ({
  question: `question ${n}`, answer: `réponse ${n}`, state: 'answered', sources: [], provider: 'offline', model: 'offline', at: n,
});

function sessions(store: Store, clock: { t: number }) {
  return new VisitorSessions(store, { settingsSchema: chatSettingsOverridesSchema, sessionSecret: SECRET, now: () => clock.t });
}

describe.each(ENGINES)('visitor sessions conformance: $name', (engine) => {
  const fixture = engineFixtures(engine, afterEach);

  describe.skipIf(!engine.ok)(`(${engine.reason})`, () => {
    it('a session made on one instance is read, changed and cleared through the other', async () => {
      const f = await fixture();
      const clock = { t: 1_800_000_000_000 };
      const a = sessions((await f.open()).store, clock);
      const b = sessions((await f.open()).store, clock);
      const browser = new Browser();
      expect(await a.load(browser.req())).toBeUndefined();
      const made = await a.ensure(browser.req(), browser.res());
      expect(browser.cookie).toMatch(new RegExp(`^${VISITOR_COOKIE}=`));
      expect(made.settings).toEqual({});
      // ensure on the other instance finds the row: no second session, no new cookie.
      const cookie = browser.cookie;
      expect((await b.ensure(browser.req(), browser.res())).id).toBe(made.id);
      expect(browser.cookie).toBe(cookie);

      await a.saveSettings(made, { k: 7, model: 'claude-haiku-4-5' });
      const onB = await b.load(browser.req());
      expect(onB?.settings).toEqual({ k: 7, model: 'claude-haiku-4-5' });
      // Settings are validated by the surface's schema before anything is written.
      await expect(b.saveSettings(onB!, { k: 500 })).rejects.toThrow();
      expect((await a.load(browser.req()))?.settings).toEqual({ k: 7, model: 'claude-haiku-4-5' });

      for (let i = 0; i < MAX_THREAD + 3; i++) await b.append(onB!, 'assistant', exchange(i));
      await b.append(onB!, 'docs', exchange(100));
      const onA = await a.load(browser.req());
      expect(onA?.threads.assistant?.map((e) => e.at)).toEqual(Array.from({ length: MAX_THREAD }, (_, i) => i + 3));
      expect(onA?.threads.docs).toHaveLength(1);
      await a.clearThread(onA!, 'assistant');
      await a.resetSettings(onA!);
      expect(await b.load(browser.req())).toMatchObject({ settings: {}, threads: { docs: [{ at: 100 }] } });
      expect((await b.load(browser.req()))?.threads.assistant).toBeUndefined();
    });

    it('30 days after its last use a session is gone, and the next new session purges its row', async () => {
      const f = await fixture();
      const clock = { t: 1_800_000_000_000 };
      const { store } = await f.open();
      const a = sessions(store, clock);
      const old = new Browser();
      const s = await a.ensure(old.req(), old.res());
      clock.t += 29 * DAY;
      await a.saveSettings(s, { k: 4 }); // a use: the 30 days start again
      clock.t += 29 * DAY;
      expect((await a.load(old.req()))?.settings).toEqual({ k: 4 });
      clock.t += DAY;
      expect(await a.load(old.req())).toBeUndefined();
      const rows = store.db.withTables<{ visitor_sessions: { id_hash: string } }>();
      expect(await rows.selectFrom('visitor_sessions').select('id_hash').execute()).toHaveLength(1);
      await sessions((await f.open()).store, clock).ensure(new Browser().req(), new Browser().res());
      const left = await rows.selectFrom('visitor_sessions').select('id_hash').execute();
      expect(left).toHaveLength(1);
      expect(left[0]!.id_hash).not.toBe(createHash('sha256').update(s.id).digest('hex'));
    });

    it('the row is keyed by the id\'s hash; a forged cookie or an invalid stored value loads nothing bad', async () => {
      const f = await fixture();
      const clock = { t: 1_800_000_000_000 };
      const { store } = await f.open();
      const a = sessions(store, clock);
      const browser = new Browser();
      const s = await a.ensure(browser.req(), browser.res());
      const hash = createHash('sha256').update(s.id).digest('hex');
      const rows = store.db.withTables<{ visitor_sessions: { id_hash: string } }>();
      expect((await rows.selectFrom('visitor_sessions').select('id_hash').execute()).map((r) => r.id_hash)).toEqual([hash]);
      const forged = new Browser();
      forged.cookie = `${VISITOR_COOKIE}=${s.id}.forged`;
      expect(await a.load(forged.req())).toBeUndefined();
      // Values written by an older version or by hand: settings load as {}, threads as none.
      await new VisitorSessionStore(store).setSettings(hash, '{"k":"many"}', clock.t);
      await new VisitorSessionStore(store).setThreads(hash, 'not json', clock.t);
      expect(await a.load(browser.req())).toMatchObject({ settings: {}, threads: {} });
    });
  });
});

describe('an existing SQLite file from before the store port', () => {
  it('keeps migration 301 and its visitor sessions: a browser\'s settings and thread load after the upgrade', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-visitor-legacy-'));
    try {
      // What the SQLite-only store wrote: its table, version 301, a session with settings and a thread.
      const path = join(dir, 'palabre.db');
      const old = openStore({ path });
      old.exec(`CREATE TABLE visitor_sessions (id_hash TEXT PRIMARY KEY, settings TEXT NOT NULL DEFAULT '{}', threads TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
        INSERT INTO schema_migrations (version, name) VALUES (301, 'docs_visitor_sessions');`);
      const id = 'legacy-session-id';
      const t = 1_800_000_000_000;
      old.prepare('INSERT INTO visitor_sessions (id_hash, settings, threads, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
        .run(createHash('sha256').update(id).digest('hex'), '{"k":9}', JSON.stringify({ assistant: [exchange(1)] }), t, t);
      old.close();

      const db = openStore({ path });
      try {
        const store = sqliteStore(db, PORTABLE_MIGRATIONS);
        expect(db.prepare('SELECT count(*) FROM schema_migrations WHERE version = 301').pluck().get()).toBe(1);
        const browser = new Browser();
        browser.cookie = `${VISITOR_COOKIE}=${sign(cookieSecret(SECRET), id)}`;
        const clock = { t: t + DAY };
        const s = await sessions(store, clock).load(browser.req());
        expect(s).toMatchObject({ id, settings: { k: 9 }, threads: { assistant: [{ at: 1 }] } });
        await sessions(store, clock).append(s!, 'assistant', exchange(2));
        expect((await sessions(store, clock).load(browser.req()))?.threads.assistant).toHaveLength(2);
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
