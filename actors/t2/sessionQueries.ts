import { sql, type Kysely } from 'kysely';
import type { Store } from '../../core/store/sqlStore.js';
import type { SessionRow } from './sessionStore.js';
import type { SessionDetail, SessionSummary, TranscriptLine } from '../../transports/http/t2Http.js';

/**
 * Read side of table t2_sessions for the candidate's « Mes séances » (GET /api/t2/sessions…).
 * Every query is scoped to the caller's `sub`: another candidate's session is simply not found.
 * Kept apart from sessionStore.ts (the write side) so each evolves on its own.
 */

/** The columns the read side selects, typed by the write side's row, plus the subject's title. */
type Row = Pick<SessionRow, 'id' | 'sujet_id' | 'mode' | 'status' | 'end_reason' | 'production_id' | 'audio_path' | 'audio_bytes' | 'transcript' | 'report' | 'started_at' | 'ended_at' | 'recording_pending'> & {
  titre: string | null;
};

/** The newest sessions first; a page of 200 is more than a candidate prepares with. */
const MAX_LISTED = 200;

function parseJson(text: string | null): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // a damaged row still lists, without its report
  }
}

/** SQLite's datetime('now') is UTC without a zone: say so, so pages show local time right. */
function iso(sqlite: string | null): string | null {
  if (!sqlite) return null;
  return /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(sqlite) ? `${sqlite.replace(' ', 'T')}Z` : sqlite;
}

function summary(row: Row): SessionSummary {
  const report = parseJson(row.report);
  return {
    id: row.id,
    sujet: { id: row.sujet_id, titre: row.titre },
    mode: row.mode,
    status: row.status,
    endReason: row.end_reason,
    startedAt: iso(row.started_at) ?? row.started_at,
    endedAt: iso(row.ended_at),
    productionId: row.production_id,
    hasAudio: Boolean(row.audio_path && ((row.audio_bytes ?? 0) > 0 || row.recording_pending === 1)),
    ...(row.audio_path && row.recording_pending === 1 ? { audioPending: true as const } : {}),
    ...(report !== undefined ? { report } : {}),
  };
}

function transcriptOf(text: string): TranscriptLine[] {
  const parsed = parseJson(text);
  if (!Array.isArray(parsed)) return [];
  const out: TranscriptLine[] = [];
  for (const t of parsed as Array<Record<string, unknown>>) {
    if ((t.speaker === 'candidate' || t.speaker === 'interlocutor') && typeof t.text === 'string') {
      out.push({ speaker: t.speaker, text: t.text, ...(typeof t.atMs === 'number' ? { atMs: t.atMs } : {}) });
    }
  }
  return out;
}

type QueryTables = {
  t2_sessions: Omit<Row, 'titre'> & { candidate_id: string };
  t2_sujets: { id: string; titre: string };
};

export class SessionQueries {
  private readonly db: Kysely<QueryTables>;
  /** SQLite orders same-second rows by rowid, Postgres by its `seq` column. */
  private readonly tieBreak;

  constructor(store: Store) {
    this.db = store.db.withTables<QueryTables>();
    this.tieBreak = sql.raw(store.dialect === 'sqlite' ? 's.rowid' : 's.seq');
  }

  private select() {
    return this.db.selectFrom('t2_sessions as s').leftJoin('t2_sujets as j', 'j.id', 's.sujet_id').select([
      's.id', 's.sujet_id', 'j.titre', 's.mode', 's.status', 's.end_reason', 's.production_id', 's.audio_path', 's.audio_bytes',
      's.transcript', 's.report', 's.started_at', 's.ended_at', 's.recording_pending',
    ]);
  }

  async list(candidateId: string): Promise<SessionSummary[]> {
    const rows = await this.select().where('s.candidate_id', '=', candidateId).orderBy('s.started_at', 'desc').orderBy(this.tieBreak, 'desc').limit(MAX_LISTED).execute();
    return rows.map(summary);
  }

  /** The session with its transcript, or undefined when it is not this candidate's. */
  async get(candidateId: string, id: string): Promise<(SessionDetail & { audioPath: string | null }) | undefined> {
    const row = await this.select().where('s.id', '=', id).where('s.candidate_id', '=', candidateId).executeTakeFirst();
    if (!row) return undefined;
    return { ...summary(row), transcript: transcriptOf(row.transcript), audioPath: row.audio_path };
  }
}

/** The transcript as a plain text file a candidate can keep (UTF-8, one turn per paragraph). */
export function transcriptText(s: SessionDetail): string {
  const head = `Tâche 2 — ${s.sujet.titre ?? s.sujet.id}\nSéance du ${s.startedAt}${s.endedAt ? ` au ${s.endedAt}` : ''}`;
  const lines = s.transcript.map((t) => `${t.speaker === 'candidate' ? 'Vous' : 'Interlocuteur'} : ${t.text}`);
  return `${[head, ...(lines.length ? lines : ['(transcription vide)'])].join('\n\n')}\n`;
}
