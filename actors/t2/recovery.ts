import type { CorrectionService } from '../corrections/contract.js';
import type { Logger } from '../../core/log.js';
import type { EndReason, Turn } from '../../machines/t2live.js';
import type { SessionStore } from './sessionStore.js';
import type { SubjectStore } from './subjects.js';
import { repairWav } from './wavWriter.js';
import { gradeT2 } from './wiring.js';

/**
 * What a stop or a crash left behind, dealt with at start (before any new session):
 * - rows still `live` (the process died mid-session: kill -9, power cut) are closed
 *   `interrupted` with the turns written so far and the recording made a valid WAV;
 * - rows left `ungraded` by a drain that ran out of time, or by the step above, are graded when
 *   the candidate said something (else marked `empty`, never retried).
 */

export interface RecoveryOutcome {
  interrupted: number;
}

export async function closeInterruptedSessions(sessions: SessionStore, log: Logger): Promise<RecoveryOutcome> {
  const rows = sessions.openRows();
  for (const row of rows) {
    let bytes: number | null = null;
    if (row.audio_path) {
      try {
        bytes = await repairWav(row.audio_path);
      } catch (err) {
        log.error({ err: (err as Error).message, session: row.id }, 't2 recovery: the recording could not be repaired; the session is kept without it');
      }
    }
    sessions.closeInterrupted(row.id, { path: bytes === null ? null : row.audio_path, bytes: bytes ?? 0 });
    log.warn({ session: row.id, turns: parseTurns(row.transcript).length, audioBytes: bytes ?? 0 }, 't2 session left open by a crash: closed as interrupted');
  }
  return { interrupted: rows.length };
}

export interface GradePendingDeps {
  sessions: SessionStore;
  subjects: SubjectStore;
  corrections: CorrectionService;
  log: Logger;
  /** Checked between sessions: a stop during the catch-up leaves the rest for the next start. */
  stopped?: () => boolean;
}

export async function gradePendingSessions(deps: GradePendingDeps): Promise<{ graded: number; empty: number; failed: number }> {
  const out = { graded: 0, empty: 0, failed: 0 };
  for (const row of deps.sessions.toRegrade()) {
    if (deps.stopped?.()) break;
    const transcript = parseTurns(row.transcript);
    if (!transcript.some((t) => t.speaker === 'candidate' && t.text.trim().length > 0)) {
      deps.sessions.setNothingToGrade(row.id);
      out.empty++;
      continue;
    }
    try {
      const graded = await gradeT2(
        deps.corrections,
        {
          candidateId: row.candidate_id,
          sessionId: row.id,
          sujetId: row.sujet_id,
          consigne: deps.subjects.get(row.sujet_id)?.consigne ?? '',
          transcript,
          facts: { audioPath: row.audio_path, audioBytes: row.audio_bytes ?? 0, rules: parseJson(row.rules), usage: parseJson(row.usage) },
          endReason: row.end_reason as EndReason | null,
        },
        row.mode === 'audio' ? 'audio' : 'text',
      );
      deps.sessions.setGraded(row.id, graded.productionId, graded.report);
      out.graded++;
      deps.log.info({ session: row.id, endReason: row.end_reason, productionId: graded.productionId }, 't2 session graded after the stop that cut it');
    } catch (err) {
      out.failed++;
      deps.log.error({ err: (err as Error).message, session: row.id }, 't2 session still ungraded: retried at the next start');
    }
  }
  return out;
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
