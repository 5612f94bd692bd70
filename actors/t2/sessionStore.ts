import { sql, type Compilable, type Kysely } from 'kysely';
import type { Store } from '../../core/store/sqlStore.js';
import { compiledOnce } from '../../core/store/compiledOnce.js';
import type { Turn } from '../../machines/t2live.js';

/**
 * One row per T2 session (table t2_sessions, migrations 401–403): who owns it, its subject, the
 * recording path and the instance that ran the session (and wrote the recording), the transcript,
 * rule counts and the production id the correction service gave. The GET of the WAV reads the
 * owner here. On the store port: the instance's SQLite file, or Postgres shared by all instances.
 */
export interface SessionRow {
  id: string;
  candidate_id: string;
  sujet_id: string;
  mode: string;
  status: string;
  end_reason: string | null;
  production_id: string | null;
  audio_path: string | null;
  audio_bytes: number | null;
  transcript: string;
  rules: string | null;
  usage: string | null;
  report: string | null;
  started_at: string;
  ended_at: string | null;
  /** The instance that ran the session; null for rows written before migration 403. */
  instance_id: string | null;
  /**
   * 1: saved by a drain before its WAV was assembled (migration 405): the recording is still the
   * journal next to `audio_path`, and `audio_bytes` is not known yet. Null once it is assembled.
   */
  recording_pending: number | null;
  /** The exam's end, epoch ms (migration 406): another instance taking the session over continues it. */
  exam_ends_at: number | string | null;
  /** The last Gemini Live session-resumption handle (audio mode). */
  live_handle: string | null;
  /**
   * Epoch ms since when the live session awaits another instance (its own died, or handed it over
   * on a stop); null while an instance holds it. Past T2_RESUME_GRACE_MS it is closed `interrupted`.
   */
  away_since: number | string | null;
}

export interface FinishedSession {
  id: string;
  candidateId: string;
  sujetId: string;
  mode: 'audio' | 'text';
  endReason: string | null;
  productionId: string | null;
  audioPath: string | null;
  audioBytes: number;
  /** The WAV is still being assembled from its journal (a drain): `audioBytes` is filled in later. */
  recordingPending?: boolean;
  transcript: Turn[];
  rules: unknown;
  usage: unknown;
  report: unknown;
}

/** End reasons whose sessions are graded at the next start when the stop left them ungraded. */
const REGRADE_REASONS = ['server_shutdown', 'interrupted'] as const;

type SessionTables = { t2_sessions: SessionRow };

/** `datetime('now')`'s format (UTC, no zone), which rows kept since before the store port have. */
function storeNow(at = Date.now()): string {
  return new Date(at).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * Every write goes through `store.writeAll`: on SQLite it runs in the calling tick (a turn is on
 * disk before its transcript frame leaves), on Postgres it is one round trip. A session's writes
 * must stay in order on a pool: the wiring queues them (actors/t2/t2Wiring.ts).
 */
export class SessionStore {
  private readonly db: Kysely<SessionTables>;
  /** The turn's write, compiled once (a hot path: core/store/compiledOnce.ts). */
  private readonly appendTurnWrite: (v: { id: string; turn: string }) => Compilable;

  constructor(private readonly store: Store, readonly instanceId: string) {
    this.db = store.db.withTables<SessionTables>();
    this.appendTurnWrite = compiledOnce(['id', 'turn'], (p) => {
      const appended = store.dialect === 'sqlite'
        ? sql<string>`json_insert(transcript, '$[#]', json(${p.turn}))`
        : sql<string>`(transcript::jsonb || jsonb_build_array(${p.turn}::jsonb))::text`;
      return this.db.updateTable('t2_sessions').set({ transcript: appended }).where('id', '=', p.id).where('status', '=', 'live');
    });
  }

  /**
   * The row of a session that starts (status `live`, its real start time). Turns are appended as
   * they become final; the end (save) completes it. A crash leaves it `live`: see `strandedRows`.
   */
  open(s: { id: string; candidateId: string; sujetId: string; mode: 'audio' | 'text'; audioPath: string | null }): Promise<void> {
    return this.store.writeAll([
      this.db.insertInto('t2_sessions').values({
        id: s.id, candidate_id: s.candidateId, sujet_id: s.sujetId, mode: s.mode, status: 'live', audio_path: s.audioPath,
        transcript: '[]', started_at: storeNow(), instance_id: this.instanceId,
      }),
    ]);
  }

  /** One small write per final turn, appended in place (the row stays valid JSON). */
  appendTurn(id: string, turn: Turn): Promise<void> {
    return this.store.writeAll([this.appendTurnWrite({ id, turn: JSON.stringify(turn) })]);
  }

  /** A session that ends without anything to save (cancelled, nothing said): its open row goes. */
  async discardOpen(id: string): Promise<{ audioPath: string | null } | undefined> {
    const row = await this.db.selectFrom('t2_sessions').select('audio_path').where('id', '=', id).where('status', '=', 'live').executeTakeFirst();
    if (!row) return undefined;
    await this.store.writeAll([this.db.deleteFrom('t2_sessions').where('id', '=', id).where('status', '=', 'live')]);
    return { audioPath: row.audio_path };
  }

  /**
   * Rows left `live` by an instance that is gone: written before the instance was recorded, or by
   * an instance not in `alive` (at start, this instance's previous run is not alive).
   */
  strandedRows(alive: readonly string[]): Promise<SessionRow[]> {
    let q = this.db.selectFrom('t2_sessions').selectAll().where('status', '=', 'live');
    q = alive.length > 0 ? q.where((eb) => eb.or([eb('instance_id', 'is', null), eb('instance_id', 'not in', [...alive])])) : q;
    return q.orderBy('started_at').execute();
  }

  /** Closes a row left open by a crash: `interrupted`, ungraded. False if another instance did first. */
  async closeInterrupted(id: string, audio: { path: string | null; bytes: number }): Promise<boolean> {
    const r = await this.db.updateTable('t2_sessions')
      .set({ status: 'ungraded', end_reason: 'interrupted', audio_path: audio.path, audio_bytes: audio.bytes, ended_at: storeNow() })
      .where('id', '=', id).where('status', '=', 'live').executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Sessions a stop or a crash left ungraded, to grade now. */
  toRegrade(): Promise<SessionRow[]> {
    return this.db.selectFrom('t2_sessions').selectAll().where('status', '=', 'ungraded').where('end_reason', 'in', [...REGRADE_REASONS]).orderBy('started_at').execute();
  }

  /** The report of a session graded after the fact. */
  setGraded(id: string, productionId: string, report: unknown): Promise<void> {
    return this.store.writeAll([
      this.db.updateTable('t2_sessions').set({ status: 'graded', production_id: productionId, report: JSON.stringify(report) }).where('id', '=', id).where('status', '=', 'ungraded'),
    ]);
  }

  /** A session with nothing to grade (no candidate speech): kept, marked so it is not retried. */
  setNothingToGrade(id: string): Promise<void> {
    return this.store.writeAll([this.db.updateTable('t2_sessions').set({ status: 'empty' }).where('id', '=', id).where('status', '=', 'ungraded')]);
  }

  /** Inserts or updates the finished session (the row `open` wrote, or a new one). */
  save(s: FinishedSession): Promise<void> {
    const now = storeNow();
    const values = {
      status: s.report ? 'graded' : 'ungraded',
      end_reason: s.endReason,
      production_id: s.productionId,
      audio_path: s.audioPath,
      audio_bytes: s.audioBytes,
      transcript: JSON.stringify(s.transcript),
      rules: JSON.stringify(s.rules ?? null),
      usage: JSON.stringify(s.usage ?? null),
      report: s.report ? JSON.stringify(s.report) : null,
      ended_at: now,
      instance_id: this.instanceId,
      recording_pending: s.recordingPending ? 1 : null,
    };
    return this.store.writeAll([
      this.db.insertInto('t2_sessions')
        .values({ id: s.id, candidate_id: s.candidateId, sujet_id: s.sujetId, mode: s.mode, started_at: now, ...values })
        .onConflict((oc) => oc.column('id').doUpdateSet(values)),
    ]);
  }

  /**
   * A recording saved pending is assembled: its size, or no recording (`path` null). False when
   * the row is not pending (already done by another instance, or the save has not happened).
   */
  async recordingAssembled(id: string, audio: { path: string | null; bytes: number }): Promise<boolean> {
    const r = await this.db.updateTable('t2_sessions')
      .set({ audio_path: audio.path, audio_bytes: audio.bytes, recording_pending: null })
      .where('id', '=', id).where('recording_pending', '=', 1).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Closed rows whose recording a drain left to assemble, of instances not in `alive` (at start,
   * this instance's previous run is not alive; a draining instance is, and finalises its own).
   */
  pendingRecordings(alive: readonly string[]): Promise<SessionRow[]> {
    let q = this.db.selectFrom('t2_sessions').selectAll().where('recording_pending', '=', 1).where('status', '!=', 'live');
    q = alive.length > 0 ? q.where((eb) => eb.or([eb('instance_id', 'is', null), eb('instance_id', 'not in', [...alive])])) : q;
    return q.orderBy('started_at').execute();
  }

  /** The exam's absolute end, written as the dialogue opens (a takeover continues the clock). */
  setExamEnd(id: string, endsAt: number): Promise<void> {
    return this.store.writeAll([this.db.updateTable('t2_sessions').set({ exam_ends_at: Math.round(endsAt) }).where('id', '=', id).where('status', '=', 'live')]);
  }

  /** The sessions' last Gemini Live resumption handles, in one write: the instance taking a session over reconnects with it. */
  setHandles(entries: ReadonlyArray<readonly [id: string, handle: string]>): Promise<void> {
    return this.store.writeAll(entries.map(([id, handle]) => this.db.updateTable('t2_sessions').set({ live_handle: handle }).where('id', '=', id).where('status', '=', 'live')));
  }

  /** A live session handed over (its instance stops): it awaits another instance from `at`. */
  markAway(id: string, at: number): Promise<void> {
    return this.store.writeAll([this.db.updateTable('t2_sessions').set({ away_since: at }).where('id', '=', id).where('status', '=', 'live').where('instance_id', '=', this.instanceId)]);
  }

  /** Live rows of instances not in `alive`, not yet marked: they await a taker from `at` (one UPDATE). */
  async markStranded(alive: readonly string[], at: number): Promise<number> {
    let q = this.db.updateTable('t2_sessions').set({ away_since: at }).where('status', '=', 'live').where('away_since', 'is', null);
    q = alive.length > 0 ? q.where((eb) => eb.or([eb('instance_id', 'is', null), eb('instance_id', 'not in', [...alive])])) : q;
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** Live rows that awaited a taker for `graceMs` or more: nobody reconnected, they are closed `interrupted`. */
  awayExpired(before: number): Promise<SessionRow[]> {
    return this.db.selectFrom('t2_sessions').selectAll().where('status', '=', 'live').where('away_since', 'is not', null).where('away_since', '<=', before).orderBy('started_at').execute();
  }

  /**
   * The candidate's live sessions not run here, newest first: held by another instance, or
   * awaiting a taker (`away_since` set: never a session this process runs — one handed over by
   * this instance's previous run, restarted with the same INSTANCE_ID, is one). Each is takeable
   * when it awaits a taker or its instance is not alive.
   */
  liveElsewhere(candidateId: string): Promise<SessionRow[]> {
    return this.db.selectFrom('t2_sessions').selectAll().where('candidate_id', '=', candidateId).where('status', '=', 'live')
      .where((eb) => eb.or([eb('instance_id', 'is', null), eb('instance_id', '!=', this.instanceId), eb('away_since', 'is not', null)])).orderBy('started_at', 'desc').execute();
  }

  /**
   * Takes a live session over from `from` (one statement: of two instances racing for it, exactly
   * one changes the row). True when this instance now holds it.
   */
  async takeOver(id: string, from: string | null): Promise<boolean> {
    const r = await this.db.updateTable('t2_sessions').set({ instance_id: this.instanceId, away_since: null })
      .where('id', '=', id).where('status', '=', 'live').where('instance_id', from === null ? 'is' : '=', from).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  get(id: string): Promise<SessionRow | undefined> {
    return this.db.selectFrom('t2_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byProduction(productionId: string): Promise<SessionRow | undefined> {
    return this.db.selectFrom('t2_sessions').selectAll().where((eb) => eb.or([eb('production_id', '=', productionId), eb('id', '=', productionId)])).executeTakeFirst();
  }
}
