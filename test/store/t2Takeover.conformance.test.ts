import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/log.js';
import type { Store } from '../../core/store/sqlStore.js';
import { Claims } from '../../actors/t2/claims.js';
import { closeInterruptedSessions } from '../../actors/t2/recovery.js';
import { SEED_SUBJECTS } from '../../actors/t2/seedSubjects.js';
import { SessionStore } from '../../actors/t2/sessionStore.js';
import { SubjectStore } from '../../actors/t2/subjects.js';
import { decideTakeover, restoredSession } from '../../actors/t2/takeover.js';
import { ENGINES, engineFixtures } from '../support/stores.js';

/**
 * What a takeover asks of the store, the same on SQLite and Postgres (time is a variable): the
 * exam's end and the resumption handle kept on the row; of two instances taking one session over
 * at once, exactly one wins; a dead instance's row awaits a taker for the grace period, then is
 * closed `interrupted`; a row handed over by a stop the same.
 */
const TTL = 3000;
const GRACE = 30_000;
const noRecording = async (): Promise<number | null> => null;

describe.each(ENGINES)('T2 takeover store conformance: $name', (engine) => {
  const fixture = engineFixtures(engine, afterEach);

  describe.skipIf(!engine.ok)(`(${engine.reason})`, () => {
    it('a dead instance\'s session: awaits a taker, taken by exactly one of two racing instances with its clock and handle', async () => {
      const f = await fixture();
      const [x, y, z] = [await f.open(), await f.open(), await f.open()];
      await new SubjectStore(x.store).seed(SEED_SUBJECTS);
      let now = 1_000_000;
      const claims = (store: Store, id: string): Claims => new Claims({ store, instanceId: id, ttlMs: TTL, now: () => now });
      const [ca, cb, cc] = [claims(x.store, 'a'), claims(y.store, 'b'), claims(z.store, 'c')];
      for (const c of [ca, cb, cc]) await c.register();
      const onA = new SessionStore(x.store, 'a');
      await onA.open({ id: 's1', candidateId: 'cand', sujetId: 'club-de-sport', mode: 'audio', audioPath: '/recordings/s1.wav' });
      await onA.appendTurn('s1', { speaker: 'candidate', text: 'Bonjour, les horaires ?', atMs: 5, final: true });
      await onA.setExamEnd('s1', 1_234_567);
      await onA.setHandles([['s1', 'handle-6'], ['s1', 'handle-7']]);
      await ca.acquire('candidate:cand', 's1');

      // `a` dies. Before its claims expire, nobody may take the candidate.
      const [onB, onC] = [new SessionStore(y.store, 'b'), new SessionStore(z.store, 'c')];
      const ports = (sessions: SessionStore, c: Claims) => ({ claims: c, sessions, graceMs: GRACE, now: () => now });
      expect(await decideTakeover(ports(onB, cb), 'cand', 'new-b')).toEqual({ kind: 'retry' });
      now += TTL + 1;
      await cb.renew();
      await cc.renew();
      // The sweep marks the row as awaiting a taker: not closed.
      expect(await closeInterruptedSessions(onB, silentLogger(), await cb.alive(), noRecording, { now, graceMs: GRACE })).toEqual({ interrupted: 0 });
      expect(Number((await onB.get('s1'))?.away_since)).toBe(now);

      // Two instances race: exactly one takes it; the other is told to retry.
      const outcomes = await Promise.all([decideTakeover(ports(onB, cb), 'cand', 'new-b'), decideTakeover(ports(onC, cc), 'cand', 'new-c')]);
      const kinds = outcomes.map((o) => o.kind).sort();
      expect(kinds).toEqual(['retry', 'takenOver']);
      const winner = outcomes[0]!.kind === 'takenOver' ? 'b' : 'c';
      expect(await onB.get('s1')).toMatchObject({ instance_id: winner, away_since: null, status: 'live' });
      expect(await restoredSession(onB, 's1')).toEqual({
        sujetId: 'club-de-sport', mode: 'audio', examEndsAt: 1_234_567, handle: 'handle-7', audioPath: '/recordings/s1.wav',
        transcript: [{ speaker: 'candidate', text: 'Bonjour, les horaires ?', atMs: 5, final: true }],
      });
      // Held again: a later sweep leaves it alone, past the grace too.
      now += GRACE + 1;
      await cb.renew();
      await cc.renew();
      expect(await closeInterruptedSessions(onB, silentLogger(), await cb.alive(), noRecording, { now, graceMs: GRACE })).toEqual({ interrupted: 0 });
    });

    it('a session nobody takes over within the grace, and one handed over by a stop, are closed `interrupted` once', async () => {
      const f = await fixture();
      const [x, y] = [await f.open(), await f.open()];
      await new SubjectStore(x.store).seed(SEED_SUBJECTS);
      let now = 5_000_000;
      const ca = new Claims({ store: x.store, instanceId: 'a', ttlMs: TTL, now: () => now });
      const cb = new Claims({ store: y.store, instanceId: 'b', ttlMs: TTL, now: () => now });
      await ca.register();
      await cb.register();
      const onA = new SessionStore(x.store, 'a');
      const onB = new SessionStore(y.store, 'b');
      await onA.open({ id: 'dead', candidateId: 'c1', sujetId: 'club-de-sport', mode: 'text', audioPath: null });
      await onA.open({ id: 'handed', candidateId: 'c2', sujetId: 'club-de-sport', mode: 'text', audioPath: null });
      // `handed`: `a` stops with `b` running and hands it over; `a` is still alive.
      await onA.markAway('handed', now);
      const sweep = () => closeInterruptedSessions(onB, silentLogger(), [], noRecording, { now, graceMs: GRACE });
      const sweepAlive = async () => closeInterruptedSessions(onB, silentLogger(), await cb.alive(), noRecording, { now, graceMs: GRACE });
      expect(await sweepAlive()).toEqual({ interrupted: 0 });
      expect((await onB.get('dead'))?.away_since).toBeNull();
      now += TTL + 1;
      await cb.renew();
      expect(await sweepAlive()).toEqual({ interrupted: 0 });
      now += GRACE;
      await cb.renew();
      // `handed` awaited since before `dead` was marked: both past the grace now.
      expect(await sweepAlive()).toEqual({ interrupted: 2 });
      expect(await sweep()).toEqual({ interrupted: 0 });
      for (const id of ['dead', 'handed']) expect(await onB.get(id)).toMatchObject({ status: 'ungraded', end_reason: 'interrupted' });
    });
  });
});
