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

export class SessionStore {
  constructor(private readonly db: Db) {}

  /** Inserts or updates the finished session (one write at the end: nothing partial is left). */
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
