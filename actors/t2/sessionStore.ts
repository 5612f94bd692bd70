import type { Db } from '../../core/store/db.js';
import type { Turn } from '../../machines/t2live.js';

/**
 * One row per T2 session (table t2_sessions, migration 401): who owns it, its subject, the
 * recording path, the transcript, rule counts and the production id the correction service gave.
 * The GET of the WAV reads the owner here.
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
  transcript: Turn[];
  rules: unknown;
  usage: unknown;
  report: unknown;
}

/** End reasons whose sessions are graded at the next start when the stop left them ungraded. */
export const REGRADE_REASONS = ['server_shutdown', 'interrupted'] as const;

export class SessionStore {
  constructor(private readonly db: Db) {}

  /**
   * The row of a session that starts (status `live`, its real start time). Turns are appended as
   * they become final; the end (save) completes it. A crash leaves it `live`: see `openRows`.
   */
  open(s: { id: string; candidateId: string; sujetId: string; mode: 'audio' | 'text'; audioPath: string | null }): void {
    this.db
      .prepare(
        `INSERT INTO t2_sessions (id, candidate_id, sujet_id, mode, status, audio_path, transcript, started_at)
         VALUES (?, ?, ?, ?, 'live', ?, '[]', datetime('now'))`,
      )
      .run(s.id, s.candidateId, s.sujetId, s.mode, s.audioPath);
  }

  /** One small write per final turn (json_insert appends in place; the row stays valid JSON). */
  appendTurn(id: string, turn: Turn): void {
    this.db.prepare(`UPDATE t2_sessions SET transcript = json_insert(transcript, '$[#]', json(?)) WHERE id = ? AND status = 'live'`).run(JSON.stringify(turn), id);
  }

  /** A session that ends without anything to save (cancelled, nothing said): its open row goes. */
  discardOpen(id: string): { audioPath: string | null } | undefined {
    const row = this.db.prepare(`SELECT audio_path FROM t2_sessions WHERE id = ? AND status = 'live'`).get(id) as { audio_path: string | null } | undefined;
    if (!row) return undefined;
    this.db.prepare(`DELETE FROM t2_sessions WHERE id = ? AND status = 'live'`).run(id);
    return { audioPath: row.audio_path };
  }

  /** Rows a crash left open (this process has none yet when it calls this at start). */
  openRows(): SessionRow[] {
    return this.db.prepare(`SELECT * FROM t2_sessions WHERE status = 'live' ORDER BY started_at`).all() as SessionRow[];
  }

  /** Closes a row left open by a crash: `interrupted`, ungraded, with what the recovery found. */
  closeInterrupted(id: string, audio: { path: string | null; bytes: number }): void {
    this.db
      .prepare(`UPDATE t2_sessions SET status = 'ungraded', end_reason = 'interrupted', audio_path = ?, audio_bytes = ?, ended_at = datetime('now') WHERE id = ? AND status = 'live'`)
      .run(audio.path, audio.bytes, id);
  }

  /** Sessions a stop or a crash left ungraded, to grade now. */
  toRegrade(): SessionRow[] {
    return this.db
      .prepare(`SELECT * FROM t2_sessions WHERE status = 'ungraded' AND end_reason IN (${REGRADE_REASONS.map(() => '?').join(', ')}) ORDER BY started_at`)
      .all(...REGRADE_REASONS) as SessionRow[];
  }

  /** The report of a session graded after the fact. */
  setGraded(id: string, productionId: string, report: unknown): void {
    this.db.prepare(`UPDATE t2_sessions SET status = 'graded', production_id = ?, report = ? WHERE id = ? AND status = 'ungraded'`).run(productionId, JSON.stringify(report), id);
  }

  /** A session with nothing to grade (no candidate speech): kept, marked so it is not retried. */
  setNothingToGrade(id: string): void {
    this.db.prepare(`UPDATE t2_sessions SET status = 'empty' WHERE id = ? AND status = 'ungraded'`).run(id);
  }

  /** Inserts or updates the finished session (the row `open` wrote, or a new one). */
  save(s: FinishedSession): void {
    this.db
      .prepare(
        `INSERT INTO t2_sessions (id, candidate_id, sujet_id, mode, status, end_reason, production_id, audio_path, audio_bytes, transcript, rules, usage, report, started_at, ended_at)
         VALUES (@id, @candidate_id, @sujet_id, @mode, @status, @end_reason, @production_id, @audio_path, @audio_bytes, @transcript, @rules, @usage, @report, datetime('now'), datetime('now'))
         ON CONFLICT(id) DO UPDATE SET status = excluded.status, end_reason = excluded.end_reason, production_id = excluded.production_id,
           audio_path = excluded.audio_path, audio_bytes = excluded.audio_bytes, transcript = excluded.transcript, rules = excluded.rules,
           usage = excluded.usage, report = excluded.report, ended_at = excluded.ended_at`,
      )
      .run({
        id: s.id,
        candidate_id: s.candidateId,
        sujet_id: s.sujetId,
        mode: s.mode,
        status: s.report ? 'graded' : 'ungraded',
        end_reason: s.endReason,
        production_id: s.productionId,
        audio_path: s.audioPath,
        audio_bytes: s.audioBytes,
        transcript: JSON.stringify(s.transcript),
        rules: JSON.stringify(s.rules ?? null),
        usage: JSON.stringify(s.usage ?? null),
        report: s.report ? JSON.stringify(s.report) : null,
      });
  }

  get(id: string): SessionRow | undefined {
    return this.db.prepare('SELECT * FROM t2_sessions WHERE id = ?').get(id) as SessionRow | undefined;
  }

  byProduction(productionId: string): SessionRow | undefined {
    return this.db.prepare('SELECT * FROM t2_sessions WHERE production_id = ? OR id = ?').get(productionId, productionId) as SessionRow | undefined;
  }
}
