import { afterEach, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { silentLogger } from '../../core/log.js';
import type { Store } from '../../core/store/sqlStore.js';
import { Claims, candidateKey } from '../../actors/t2/claims.js';
import { closeFencedSessions, closeInterruptedSessions, finalisePendingRecordings, gradePendingSessions } from '../../actors/t2/recovery.js';
import { SEED_SUBJECTS } from '../../actors/t2/seedSubjects.js';
import { SessionQueries } from '../../actors/t2/sessionQueries.js';
import { SessionStore, type FinishedSession } from '../../actors/t2/sessionStore.js';
import { SubjectStore } from '../../actors/t2/subjects.js';
import type { Turn } from '../../machines/t2live.js';
import { RecordingCorrections } from '../t2/support.js';
import { ENGINES, engineFixtures } from '../support/stores.js';

/**
 * T2's stores on the port behave the same on SQLite and Postgres: subjects, sessions written as
 * they happen, the candidate's read side, and the claims that keep one live session per candidate
 * across instances and let a live instance close the rows of a dead one. Time is a variable.
 */
const turn = (speaker: Turn['speaker'], text: string, atMs: number): Turn => ({ speaker, text, atMs, final: true });
const finished = (id: string, over: Partial<FinishedSession> = {}): FinishedSession => ({
  id, candidateId: 'cand', sujetId: 'club-de-sport', mode: 'text', endReason: 'candidate', productionId: `p-${id}`, audioPath: null, audioBytes: 0,
  transcript: [turn('candidate', 'Bonjour, quels sont les horaires ?', 10)], rules: { replies: 1 }, usage: null, report: { scoreGlobal: 12 }, ...over,
});
const TTL = 15_000;
/** One instance's claims on `store`, on the test's clock. */
const claimsOf = (store: Store, instanceId: string, now: () => number): Claims => new Claims({ store, instanceId, ttlMs: TTL, now });
/** Two instances' connections to the engine's one database, the subjects seeded. */
async function twoInstances(f: Awaited<ReturnType<ReturnType<typeof engineFixtures>>>) {
  const [x, y] = [await f.open(), await f.open()];
  await new SubjectStore(x.store).seed(SEED_SUBJECTS);
  return [x, y] as const;
}

describe.each(ENGINES)('T2 store conformance: $name', (engine) => {
  const fixture = engineFixtures(engine, afterEach);

  describe.skipIf(!engine.ok)(`(${engine.reason})`, () => {
    it('subjects: seeded once by two instances starting together, added, replaced, invalid input refused', async () => {
      const f = await fixture();
      const a = new SubjectStore((await f.open()).store);
      const b = new SubjectStore((await f.open()).store);
      const added = await Promise.all([a.seed(SEED_SUBJECTS), b.seed(SEED_SUBJECTS)]);
      expect(added[0] + added[1]).toBe(SEED_SUBJECTS.length);
      expect(await a.seed(SEED_SUBJECTS)).toBe(0);
      const listed = await b.list();
      expect(listed).toHaveLength(SEED_SUBJECTS.length);
      expect(listed.map((s) => s.titre)).toEqual([...listed.map((s) => s.titre)].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
      const club = await a.get('club-de-sport');
      expect(club?.factSheet.length).toBeGreaterThan(2);
      expect(a.cached('club-de-sport')).toEqual(club);
      await b.add({ ...SEED_SUBJECTS[0]!, titre: 'Un titre remplacé' });
      expect((await a.get(SEED_SUBJECTS[0]!.id!))?.titre).toBe('Un titre remplacé');
      await expect(a.add({ titre: 'x' })).rejects.toBeInstanceOf(ZodError);
      expect(await a.list()).toHaveLength(SEED_SUBJECTS.length);
      expect(await a.get('absent')).toBeUndefined();
    });

    it('sessions: opened live by an instance, turns appended in place, saved over the open row (start time kept), read back by the candidate only', async () => {
      const f = await fixture();
      const { store } = await f.open();
      await new SubjectStore(store).seed(SEED_SUBJECTS);
      const sessions = new SessionStore(store, 'inst-a');
      await sessions.open({ id: 's1', candidateId: 'cand', sujetId: 'club-de-sport', mode: 'audio', audioPath: '/shared/s1.wav' });
      await sessions.appendTurn('s1', turn('candidate', 'Bonjour, c’est « ouvert » le dimanche ?', 10));
      await sessions.appendTurn('s1', turn('interlocutor', 'Oui, de huit heures à midi.', 900));
      const open = await sessions.get('s1');
      expect(open).toMatchObject({ status: 'live', instance_id: 'inst-a', audio_path: '/shared/s1.wav', end_reason: null });
      expect(JSON.parse(open!.transcript)).toEqual([turn('candidate', 'Bonjour, c’est « ouvert » le dimanche ?', 10), turn('interlocutor', 'Oui, de huit heures à midi.', 900)]);
      expect(open!.started_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      await sessions.save(finished('s1', { mode: 'audio', audioPath: '/shared/s1.wav', audioBytes: 4800 }));
      const saved = await sessions.get('s1');
      expect(saved).toMatchObject({ status: 'graded', production_id: 'p-s1', audio_bytes: 4800, instance_id: 'inst-a', started_at: open!.started_at });
      expect(await sessions.byProduction('p-s1')).toMatchObject({ id: 's1' });
      // A turn after the end is not appended (the row is no longer live).
      await sessions.appendTurn('s1', turn('candidate', 'trop tard', 2000));
      expect(JSON.parse((await sessions.get('s1'))!.transcript)).toHaveLength(1);
      // A cancelled session leaves nothing.
      await sessions.open({ id: 's2', candidateId: 'cand', sujetId: 'club-de-sport', mode: 'audio', audioPath: '/shared/s2.wav' });
      expect(await sessions.discardOpen('s2')).toEqual({ audioPath: '/shared/s2.wav' });
      expect(await sessions.get('s2')).toBeUndefined();
      expect(await sessions.discardOpen('s1')).toBeUndefined();
      // Read side, from another instance: scoped to the candidate, newest first, the subject's title joined.
      const queries = new SessionQueries((await f.open()).store);
      await sessions.save(finished('s3', { report: null, productionId: null, endReason: 'server_shutdown' }));
      const list = await queries.list('cand');
      expect(list.map((s) => s.id)).toEqual(['s3', 's1']);
      expect(list[1]).toMatchObject({ sujet: { id: 'club-de-sport', titre: expect.any(String) }, status: 'graded', hasAudio: true, report: { scoreGlobal: 12 } });
      expect(list[1]!.startedAt).toMatch(/Z$/);
      expect(await queries.get('someone-else', 's1')).toBeUndefined();
      expect((await queries.get('cand', 's1'))?.transcript).toEqual([{ speaker: 'candidate', text: 'Bonjour, quels sont les horaires ?', atMs: 10 }]);
      expect((await sessions.toRegrade()).map((r) => r.id)).toEqual(['s3']);
      await sessions.setGraded('s3', 'p-late', { scoreGlobal: 9 });
      expect(await sessions.get('s3')).toMatchObject({ status: 'graded', production_id: 'p-late' });
      expect(await sessions.toRegrade()).toEqual([]);
    });

    it('claims: a candidate live on one instance is refused on the other until released or expired; the holder renews', async () => {
      const f = await fixture();
      let now = 1_800_000_000_000;
      const a = claimsOf((await f.open()).store, 'inst-a', () => now);
      const b = claimsOf((await f.open()).store, 'inst-b', () => now);
      await a.register();
      await b.register();
      expect((await a.alive()).sort()).toEqual(['inst-a', 'inst-b']);
      const key = candidateKey('cand');
      expect(await a.acquire(key, 's1')).toEqual({ ok: true });
      // Same instance: a second session of the candidate (the root actor replaces or resumes).
      expect(await a.acquire(key, 's2')).toEqual({ ok: true });
      expect(await b.acquire(key, 's3')).toEqual({ ok: false, holder: 'inst-a' });
      await a.release(key);
      expect(await b.acquire(key, 's3')).toEqual({ ok: false, holder: 'inst-a' }); // one session of A still holds it
      await a.release(key);
      expect(await b.acquire(key, 's3')).toEqual({ ok: true });
      // B stops renewing (killed): A is refused until the TTL passes, then takes the candidate.
      now += TTL - 1;
      await a.renew();
      expect(await a.acquire(key, 's4')).toEqual({ ok: false, holder: 'inst-b' });
      expect((await a.alive()).sort()).toEqual(['inst-a', 'inst-b']);
      now += 2;
      expect(await a.alive()).toEqual(['inst-a']);
      expect(await a.acquire(key, 's4')).toEqual({ ok: true });
      // A release whose delete fails (store unreachable) is retried by the next renewal, and the
      // key is not renewed meanwhile: the candidate is not held for as long as A lives.
      let failNext = false;
      const x = (await f.open()).store;
      const flaky: Store = { ...x, writeAll: (q) => (failNext ? ((failNext = false), Promise.reject(new Error('store unreachable'))) : x.writeAll(q)) };
      const c = claimsOf(flaky, 'inst-c', () => now);
      await c.register();
      const other = candidateKey('cand-flaky');
      expect(await c.acquire(other, 's6')).toEqual({ ok: true });
      failNext = true;
      await expect(c.release(other)).rejects.toThrow('store unreachable');
      expect(await b.acquire(other, 's7')).toEqual({ ok: false, holder: 'inst-c' });
      await c.renew();
      expect(await b.acquire(other, 's7')).toEqual({ ok: true });
      // A clean stop lets go at once.
      await a.stop();
      expect(await b.acquire(key, 's5')).toEqual({ ok: true });
      expect((await b.alive()).sort()).toEqual(['inst-c']);
    });

    it('a dead instance\'s live rows are closed `interrupted` by a live one (once), then graded by one instance only', async () => {
      const f = await fixture();
      let now = 1_800_000_000_000;
      const log = silentLogger();
      const [x, y] = await twoInstances(f);
      const claimsA = claimsOf(x.store, 'inst-a', () => now);
      const claimsB = claimsOf(y.store, 'inst-b', () => now);
      await claimsA.register();
      await claimsB.register();
      const onA = new SessionStore(x.store, 'inst-a');
      const onB = new SessionStore(y.store, 'inst-b');
      await onA.open({ id: 'cut', candidateId: 'cand', sujetId: 'club-de-sport', mode: 'text', audioPath: null });
      await onA.appendTurn('cut', turn('candidate', 'Quels sont les horaires du club ?', 10));
      await onB.open({ id: 'mine', candidateId: 'other', sujetId: 'club-de-sport', mode: 'text', audioPath: null });
      // A is alive: nothing of it is stranded; B's own live row neither.
      expect(await closeInterruptedSessions(onB, log, await claimsB.alive())).toEqual({ interrupted: 0 });
      // A is killed (stops renewing); B renews. Past the TTL, B's sweep closes A's row, not its own.
      now += TTL + 1;
      await claimsB.renew();
      expect(await claimsB.alive()).toEqual(['inst-b']);
      const [first, second] = await Promise.all([
        closeInterruptedSessions(onB, log, await claimsB.alive()),
        closeInterruptedSessions(onB, log, await claimsB.alive()),
      ]);
      expect(first.interrupted + second.interrupted).toBe(1);
      expect(await onB.get('cut')).toMatchObject({ status: 'ungraded', end_reason: 'interrupted', instance_id: 'inst-a' });
      expect(JSON.parse((await onB.get('cut'))!.transcript)).toHaveLength(1);
      expect(await onB.get('mine')).toMatchObject({ status: 'live' });
      // Two instances grade what is pending at once: one production, not two.
      const claimsC = claimsOf(x.store, 'inst-c', () => now);
      await claimsC.register();
      const corrections = new RecordingCorrections();
      const subjectsB = new SubjectStore(y.store);
      const outcomes = await Promise.all([
        gradePendingSessions({ sessions: onB, subjects: subjectsB, corrections, log, claims: claimsB }),
        gradePendingSessions({ sessions: new SessionStore(x.store, 'inst-c'), subjects: new SubjectStore(x.store), corrections, log, claims: claimsC }),
      ]);
      expect(outcomes[0].graded + outcomes[1].graded).toBe(1);
      expect(corrections.oral.filter((r) => r.transcript.length === 1)).toHaveLength(1);
      expect(await onB.get('cut')).toMatchObject({ status: 'graded', end_reason: 'interrupted' });
    });

    it('a recording a drain left pending is assembled once, by one instance, only after the drained instance is gone; read as pending until then', async () => {
      const f = await fixture();
      const now = 1_800_000_000_000;
      const log = silentLogger();
      const [x, y] = await twoInstances(f);
      const claimsA = claimsOf(x.store, 'inst-a', () => now);
      const claimsB = claimsOf(y.store, 'inst-b', () => now);
      const claimsC = claimsOf(x.store, 'inst-c', () => now);
      for (const c of [claimsA, claimsB, claimsC]) await c.register();
      const onA = new SessionStore(x.store, 'inst-a');
      await onA.open({ id: 'drained', candidateId: 'cand', sujetId: 'club-de-sport', mode: 'audio', audioPath: '/shared/drained.wav' });
      await onA.save(finished('drained', { mode: 'audio', endReason: 'server_shutdown', audioPath: '/shared/drained.wav', recordingPending: true }));
      const summary = (await new SessionQueries(y.store).list('cand'))[0];
      expect(summary).toMatchObject({ hasAudio: true, audioPending: true, endReason: 'server_shutdown' });
      // What the recording thread would do with the journal: counted, so twice would show.
      const assembled: string[] = [];
      const recover = async (path: string): Promise<number> => {
        assembled.push(path);
        return 48_000;
      };
      const run = (sessions: SessionStore, claims: Claims) => async () => finalisePendingRecordings({ sessions, log, recover, alive: await claims.alive(), claims });
      const onB = new SessionStore(y.store, 'inst-b');
      const onC = new SessionStore(x.store, 'inst-c');
      // A is alive (still draining, its recording thread may be assembling it): nobody else touches it.
      expect(await run(onB, claimsB)()).toEqual({ assembled: 0, failed: 0 });
      // A stopped (its claim let go); B and C sweep at once: assembled once, the row completed.
      await claimsA.stop();
      const outcomes = await Promise.all([run(onB, claimsB)(), run(onC, claimsC)()]);
      expect(outcomes[0].assembled + outcomes[1].assembled).toBe(1);
      expect(assembled).toEqual(['/shared/drained.wav']);
      expect(await onB.get('drained')).toMatchObject({ status: 'graded', end_reason: 'server_shutdown', audio_bytes: 48_000, recording_pending: null, audio_path: '/shared/drained.wav' });
      expect((await new SessionQueries(y.store).list('cand'))[0]).not.toHaveProperty('audioPending');
      // Not pending any more: a second sweep does nothing, and the update is refused.
      expect(await run(onB, claimsB)()).toEqual({ assembled: 0, failed: 0 });
      expect(await onB.recordingAssembled('drained', { path: null, bytes: 0 })).toBe(false);
    });

    it('an instance cut from the store fences one renewal period before its claims expire; back after another swept it, it closes and grades nothing twice', async () => {
      const f = await fixture();
      let now = 1_800_000_000_000;
      const log = silentLogger();
      const [x, y] = await twoInstances(f);
      let cut = false;
      const flaky: Store = { ...x.store, writeAll: (q) => (cut ? Promise.reject(new Error('store unreachable')) : x.store.writeAll(q)) };
      const claimsA = claimsOf(flaky, 'inst-a', () => now);
      const claimsB = claimsOf(y.store, 'inst-b', () => now);
      await claimsA.register();
      await claimsB.register();
      const period = claimsA.renewEveryMs;
      expect(period).toBe(TTL / 3);
      const onA = new SessionStore(x.store, 'inst-a');
      const onB = new SessionStore(y.store, 'inst-b');
      expect(await claimsA.acquire(candidateKey('cand-cut'), 'f')).toEqual({ ok: true });
      await onA.open({ id: 'f', candidateId: 'cand-cut', sujetId: 'club-de-sport', mode: 'text', audioPath: null });
      await onA.appendTurn('f', turn('candidate', 'Quels sont les horaires du club ?', 10));

      cut = true;
      now += period;
      await expect(claimsA.renew()).rejects.toThrow('store unreachable');
      expect(claimsA.fenced()).toBe(false);
      now += period;
      await expect(claimsA.renew()).rejects.toThrow('store unreachable');
      // Fenced one period before its claims expire: B still sees A alive and its candidate held.
      expect(claimsA.fenced()).toBe(true);
      expect((await claimsB.alive()).sort()).toEqual(['inst-a', 'inst-b']);
      expect(await claimsB.acquire(candidateKey('cand-cut'), 'g')).toEqual({ ok: false, holder: 'inst-a' });
      expect(await closeInterruptedSessions(onB, log, await claimsB.alive())).toEqual({ interrupted: 0 });

      // Past the expiry B sweeps A's row and grades it.
      now += period + 1;
      await claimsB.renew();
      expect(await claimsB.alive()).toEqual(['inst-b']);
      expect(await closeInterruptedSessions(onB, log, await claimsB.alive())).toEqual({ interrupted: 1 });
      const corrections = new RecordingCorrections();
      expect(await gradePendingSessions({ sessions: onB, subjects: new SubjectStore(y.store), corrections, log, claims: claimsB })).toMatchObject({ graded: 1 });

      // A comes back: renewed, no longer fenced; what it stopped is B's already — nothing closed or graded again.
      cut = false;
      await claimsA.renew();
      expect(claimsA.fenced()).toBe(false);
      expect(await closeFencedSessions(onA, log, ['f'])).toEqual({ interrupted: 0 });
      expect(await gradePendingSessions({ sessions: onA, subjects: new SubjectStore(x.store), corrections, log, claims: claimsA })).toMatchObject({ graded: 0 });
      expect(corrections.oral).toHaveLength(1);
      expect(await onA.get('f')).toMatchObject({ status: 'graded', end_reason: 'interrupted', instance_id: 'inst-a' });

      // Cut again, but back before the expiry: A closes its own stopped row, B's sweep finds nothing.
      await onA.open({ id: 'h', candidateId: 'cand-h', sujetId: 'club-de-sport', mode: 'text', audioPath: null });
      await onA.appendTurn('h', turn('candidate', 'Est-ce que le club est ouvert le dimanche ?', 10));
      cut = true;
      now += 2 * period;
      await expect(claimsA.renew()).rejects.toThrow('store unreachable');
      expect(claimsA.fenced()).toBe(true);
      cut = false;
      now += period / 2;
      await claimsA.renew();
      await claimsB.renew();
      expect(claimsA.fenced()).toBe(false);
      expect(await closeFencedSessions(onA, log, ['h'])).toEqual({ interrupted: 1 });
      expect(await closeInterruptedSessions(onB, log, await claimsB.alive())).toEqual({ interrupted: 0 });
      expect(await onB.get('h')).toMatchObject({ status: 'ungraded', end_reason: 'interrupted' });
    });
  });
});
