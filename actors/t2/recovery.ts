import type { CorrectionService } from '../../machines/correctionContract.js';
import type { Logger } from '../../core/log.js';
import type { EndReason, Turn } from '../../machines/t2live.js';
import { gradeKey, recordingKey, type Claims } from './claims.js';
import type { SessionRow, SessionStore } from './sessionStore.js';
import type { SubjectStore } from './subjects.js';
import { recoverRecording } from './recordingJournal.js';
import { gradeT2 } from './t2Wiring.js';

/**
 * What a stop or a crash left behind, dealt with at start (before any new session) and, with
 * several instances on one database, by every instance while it runs (actors/t2/surface.ts):
 * - rows still `live` whose instance is gone (the process died mid-session: kill -9, power cut;
 *   at start that includes this instance's previous run) are closed `interrupted` with the turns
 *   written so far and the recording made a valid WAV — its journal assembled (the recordings
 *   folder is shared);
 * - rows left `ungraded` by a drain that ran out of time, or by the step above, are graded when
 *   the candidate said something (else marked `empty`, never retried), each by one instance only;
 * - recordings a drain saved pending (`recording_pending`: the session closed without waiting for
 *   its WAV) whose instance is gone are assembled from their journal, in the background, each by
 *   one instance only (`finalisePendingRecordings`).
 */

export interface RecoveryOutcome {
  interrupted: number;
}

/**
 * Makes a crashed session's recording a valid WAV (its journal assembled, or an older WAV's header
 * repaired): the data bytes, or null. The surface passes its recording thread's (RecordingThread.recover).
 */
export type RecoverRecording = (wavPath: string) => Promise<number | null>;

/**
 * A live session awaits a taker for this long (T2_RESUME_GRACE_MS) from `now` on the claims' clock:
 * another instance may take it over meanwhile (actors/t2/takeover.ts); 0 closes at once.
 */
export interface TakeoverGrace {
  now: number;
  graceMs: number;
}

/**
 * `alive`: the instances whose live rows are not stranded (at start: the others, not this one).
 * With `grace`, a stranded row is first marked as awaiting a taker, and closed only once it awaited
 * one for the grace period (a row handed over on a stop is closed the same way). At start a row
 * that awaits a taker within its grace is left for the sweeps: its page may be reconnecting.
 */
export async function closeInterruptedSessions(sessions: SessionStore, log: Logger, alive: readonly string[] = [], recover: RecoverRecording = recoverRecording, grace?: TakeoverGrace & { atStart?: boolean }): Promise<RecoveryOutcome> {
  if (!grace || grace.graceMs <= 0) return closeRows(sessions, log, await sessions.strandedRows(alive), recover);
  if (grace.atStart) {
    const waiting = (r: SessionRow): boolean => r.away_since !== null && Number(r.away_since) + grace.graceMs > grace.now;
    return closeRows(sessions, log, (await sessions.strandedRows(alive)).filter((r) => !waiting(r)), recover);
  }
  const marked = await sessions.markStranded(alive, grace.now);
  if (marked > 0) log.info({ sessions: marked, graceMs: grace.graceMs }, 't2 live sessions of a dead instance await a reconnect to take them over');
  return closeRows(sessions, log, await sessions.awayExpired(grace.now - grace.graceMs), recover);
}

/**
 * The sessions this instance stopped when it fenced itself (actors/t2/surface.ts), once its claims
 * are renewed again: those still `live` (no other instance swept them meanwhile) are closed
 * `interrupted` here, as a crash's would be.
 */
export async function closeFencedSessions(sessions: SessionStore, log: Logger, ids: readonly string[], recover: RecoverRecording = recoverRecording): Promise<RecoveryOutcome> {
  const rows: SessionRow[] = [];
  for (const id of ids) {
    const row = await sessions.get(id);
    if (row?.status === 'live') rows.push(row);
  }
  return closeRows(sessions, log, rows, recover);
}

async function closeRows(sessions: SessionStore, log: Logger, rows: readonly SessionRow[], recover: RecoverRecording): Promise<RecoveryOutcome> {
  let interrupted = 0;
  for (const row of rows) {
    let bytes: number | null = null;
    if (row.audio_path) {
      try {
        bytes = await recover(row.audio_path);
      } catch (err) {
        log.error({ err: (err as Error).message, session: row.id }, 't2 recovery: the recording could not be repaired; the session is kept without it');
      }
    }
    // Another instance's sweep may have closed it first: only one logs and counts it.
    if (!(await sessions.closeInterrupted(row.id, { path: bytes === null ? null : row.audio_path, bytes: bytes ?? 0 }))) continue;
    interrupted++;
    log.warn({ session: row.id, instance: row.instance_id, turns: parseTurns(row.transcript).length, audioBytes: bytes ?? 0 }, 't2 session left open (a crash, or a fence): closed as interrupted');
  }
  return { interrupted };
}

export interface FinalisePendingDeps {
  sessions: SessionStore;
  log: Logger;
  recover: RecoverRecording;
  /** Instances still running: their pending recordings are theirs to finish (at start: not this one). */
  alive: readonly string[];
  /** Checked between recordings: a stop leaves the rest for the next start. */
  stopped?: () => boolean;
  claims?: Claims;
}

/**
 * Assembles the recordings a drain left pending (docs/operations.md § Stop). The row, not a listing
 * of `*.wav.journal` files, says which: with several instances on one folder a journal may be a
 * session live elsewhere. A journal already assembled (the drain finished it but not its row)
 * leaves a complete WAV, whose header is read back (`recoverRecording`).
 */
export async function finalisePendingRecordings(deps: FinalisePendingDeps): Promise<{ assembled: number; failed: number }> {
  const out = { assembled: 0, failed: 0 };
  for (const listed of await deps.sessions.pendingRecordings(deps.alive)) {
    if (deps.stopped?.()) break;
    const claimed = deps.claims ? (await deps.claims.acquire(recordingKey(listed.id), listed.id)).ok : true;
    if (!claimed) continue;
    try {
      const row = deps.claims ? await deps.sessions.get(listed.id) : listed;
      if (row?.recording_pending !== 1) continue;
      let bytes: number | null = null;
      try {
        bytes = row.audio_path ? await deps.recover(row.audio_path) : null;
      } catch (err) {
        // Stopped meanwhile: left pending for the next start. Otherwise the journal is unreadable.
        if (deps.stopped?.()) break;
        out.failed++;
        deps.log.error({ err: (err as Error).message, session: row.id }, 't2 pending recording could not be assembled: the session is kept without it');
      }
      await deps.sessions.recordingAssembled(row.id, { path: bytes === null ? null : row.audio_path, bytes: bytes ?? 0 });
      if (bytes !== null) out.assembled++;
    } finally {
      if (deps.claims) await deps.claims.release(recordingKey(listed.id));
    }
  }
  return out;
}

export interface GradePendingDeps {
  sessions: SessionStore;
  subjects: SubjectStore;
  corrections: CorrectionService;
  log: Logger;
  /** Checked between sessions: a stop during the catch-up leaves the rest for the next start. */
  stopped?: () => boolean;
  /** With several instances: a session is graded by the instance that claims it, once. */
  claims?: Claims;
}

export async function gradePendingSessions(deps: GradePendingDeps): Promise<{ graded: number; empty: number; failed: number }> {
  const out = { graded: 0, empty: 0, failed: 0 };
  for (const listed of await deps.sessions.toRegrade()) {
    if (deps.stopped?.()) break;
    const claimed = deps.claims ? (await deps.claims.acquire(gradeKey(listed.id), listed.id)).ok : true;
    if (!claimed) continue;
    try {
      // Read again under the claim: another instance may have graded it since the list was read.
      const row = deps.claims ? await deps.sessions.get(listed.id) : listed;
      if (row?.status === 'ungraded') await gradeOne(deps, row, out);
    } finally {
      if (deps.claims) await deps.claims.release(gradeKey(listed.id));
    }
  }
  return out;
}

async function gradeOne(deps: GradePendingDeps, row: SessionRow, out: { graded: number; empty: number; failed: number }): Promise<void> {
  const transcript = parseTurns(row.transcript);
  if (!transcript.some((t) => t.speaker === 'candidate' && t.text.trim().length > 0)) {
    await deps.sessions.setNothingToGrade(row.id);
    out.empty++;
    return;
  }
  try {
    const subject = await deps.subjects.get(row.sujet_id);
    const graded = await gradeT2(
      deps.corrections,
      {
        candidateId: row.candidate_id,
        sessionId: row.id,
        sujetId: row.sujet_id,
        consigne: subject?.consigne ?? '',
        transcript,
        facts: { audioPath: row.audio_path, audioBytes: row.audio_bytes ?? 0, rules: parseJson(row.rules), usage: parseJson(row.usage) },
        endReason: row.end_reason as EndReason | null,
      },
      row.mode === 'audio' ? 'audio' : 'text',
      subject,
    );
    await deps.sessions.setGraded(row.id, graded.productionId, graded.report);
    out.graded++;
    deps.log.info({ session: row.id, endReason: row.end_reason, productionId: graded.productionId }, 't2 session graded after the stop that cut it');
  } catch (err) {
    out.failed++;
    deps.log.error({ err: (err as Error).message, session: row.id }, 't2 session still ungraded: retried at the next start or sweep');
  }
}

function parseJson(text: string | null): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function parseTurns(text: string): Turn[] {
  const v = parseJson(text);
  return Array.isArray(v) ? (v as Turn[]).filter((t) => t && typeof t.text === 'string') : [];
}
