import { createActor, fromPromise, toPromise } from 'xstate';
import { t2TakeoverMachine, type ElsewhereRow, type TakeoverOutcome } from '../../machines/t2Takeover.js';
import { CLOSE, type RestoredSession, type Turn } from '../../machines/t2live.js';
import type { Logger } from '../../core/log.js';
import type { Admission } from '../../transports/ws/t2liveSocket.js';
import { candidateKey, type Claims } from './claims.js';
import type { SessionRow, SessionStore } from './sessionStore.js';

/**
 * A live T2 session outlives its instance (docs/scaling.md § A live T2 session survives its instance):
 * the takeover chart (machines/t2Takeover.ts) wired to the claims and the session rows, and the
 * session rebuilt from its row.
 */
export interface TakeoverPorts {
  claims: Claims;
  sessions: SessionStore;
  /** T2_RESUME_GRACE_MS. */
  graceMs: number;
  /** The claims' clock (epoch ms; simulated in tests). */
  now: () => number;
}

/** The chart with its actors, for one reconnect of `candidateId` admitted as `sessionId`. */
function provideTakeover(ports: TakeoverPorts, candidateId: string, sessionId: string) {
  const { claims, sessions } = ports;
  const key = candidateKey(candidateId);
  return t2TakeoverMachine.provide({
    actors: {
      acquireCandidate: fromPromise(async () => ({ ok: (await claims.acquire(key, sessionId)).ok })),
      findSessions: fromPromise(async (): Promise<ElsewhereRow[]> => {
        const rows = await sessions.liveElsewhere(candidateId);
        if (rows.length === 0) return [];
        const alive = new Set(await claims.alive());
        return rows.map((r) => ({ id: r.id, instanceId: r.instance_id, awaySince: epochOrNull(r.away_since), instanceAlive: r.instance_id !== null && alive.has(r.instance_id) }));
      }),
      takeSession: fromPromise<boolean, { id: string; from: string | null }>(({ input }) => sessions.takeOver(input.id, input.from)),
      releaseCandidate: fromPromise(() => claims.release(key)),
    },
  });
}

/** Runs the takeover chart once for a reconnect: what to do with it. */
export function decideTakeover(ports: TakeoverPorts, candidateId: string, sessionId: string): Promise<TakeoverOutcome> {
  const actor = createActor(provideTakeover(ports, candidateId, sessionId), { input: { now: ports.now(), graceMs: ports.graceMs } });
  const done = toPromise(actor);
  actor.start();
  return done;
}

/** The session as its row has it, for the instance that took it over. */
export async function restoredSession(sessions: SessionStore, id: string): Promise<RestoredSession | null> {
  const row = await sessions.get(id);
  return row ? restoredFromRow(row) : null;
}

function restoredFromRow(row: SessionRow): RestoredSession {
  return {
    sujetId: row.sujet_id,
    mode: row.mode === 'audio' ? 'audio' : 'text',
    transcript: turnsOf(row.transcript),
    examEndsAt: epochOrNull(row.exam_ends_at),
    handle: row.live_handle,
    audioPath: row.audio_path,
  };
}

function epochOrNull(v: number | string | null): number | null {
  if (v === null) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

function turnsOf(text: string): Turn[] {
  try {
    const v = JSON.parse(text) as unknown;
    if (!Array.isArray(v)) return [];
    return v
      .filter((t): t is Turn => typeof t === 'object' && t !== null && typeof (t as Turn).text === 'string' && ((t as Turn).speaker === 'candidate' || (t as Turn).speaker === 'interlocutor'))
      .map((t) => ({ speaker: t.speaker, text: t.text, atMs: Number(t.atMs) || 0, final: true }));
  } catch {
    return [];
  }
}

/** What a reconnect that cannot be served now gets: the page reconnects again (docs/t2-live.md#close-codes). */
const RECONNECT_FRAME = { code: CLOSE.RECONNECT, name: 'RECONNECT', message: 'Votre séance est en cours de reprise sur un autre serveur : reconnexion…' } as const;

/**
 * The admission of a reconnect (`resume=1`) with several instances on one database: it takes over
 * the candidate's session another instance held when the chart says so; otherwise it holds the
 * candidate's claim as any admission (the root then resumes a local session, or answers 4410), or
 * tells the page to try again.
 */
export async function admitReconnect(ports: TakeoverPorts & { log: Logger }, candidateId: string, sessionId: string): Promise<Admission> {
  const key = candidateKey(candidateId);
  const done = (): Promise<void> => ports.claims.release(key).catch((err: unknown) => ports.log.warn({ err: (err as Error).message }, 't2 candidate claim not released: it expires'));
  const outcome = await decideTakeover(ports, candidateId, sessionId).catch((): TakeoverOutcome => ({ kind: 'failed' }));
  switch (outcome.kind) {
    case 'admitted':
      return { ok: true, done };
    case 'retry':
      ports.log.info('t2 reconnect: the session is not takeable here yet (held elsewhere, or a hand-over under way): the page tries again');
      return { ok: false, ...RECONNECT_FRAME };
    case 'failed':
      ports.log.error('t2 reconnect: the store failed during the takeover');
      return { ok: false, code: CLOSE.INTERNAL, name: 'INTERNAL', message: 'Le service est momentanément indisponible. Réessayez dans un instant.' };
    case 'takenOver': {
      const restore = await restoredSession(ports.sessions, outcome.sessionId).catch(() => null);
      if (!restore) {
        // Held by this instance now, but not running here: it awaits a taker again.
        await ports.sessions.markAway(outcome.sessionId, ports.now()).catch(() => undefined);
        await done();
        return { ok: false, code: CLOSE.INTERNAL, name: 'INTERNAL', message: 'Le service est momentanément indisponible. Réessayez dans un instant.' };
      }
      ports.log.info({ session: outcome.sessionId, turns: restore.transcript.length, examEndsAt: restore.examEndsAt, handle: restore.handle !== null }, 't2 session taken over from another instance');
      // Let go (the session ended, or never started: the socket went before the upgrade, the edge
      // refused it): a row still live awaits a taker again instead of staying this instance's.
      const letGo = async (): Promise<void> => {
        await ports.sessions.markAway(outcome.sessionId, ports.now()).catch((err: unknown) => ports.log.warn({ err: (err as Error).message, session: outcome.sessionId }, 't2 taken-over row not released: closed `interrupted` by the next start'));
        await done();
      };
      return { ok: true, done: letGo, takenOver: { sessionId: outcome.sessionId, restore } };
    }
  }
}
