import type { OralSubject, OralTask, TranscriptTurn, WrittenTask } from '../prompts/corrections/tasks.js';

export type { OralTask, WrittenTask };

/**
 * Contract between the corrections surface (`actors/corrections/`) and its callers: the HTTP API
 * and the T2 live session, which grades its transcript at the end and stores the production.
 * It lives beside the correction chart, below every caller. The report's zod schema is
 * machines/correctionReport.ts; callers treat the report as opaque JSON to forward.
 */

export interface OralCorrectionRequest {
  candidateId: string;
  tache: OralTask;
  consigne: string;
  transcript: TranscriptTurn[];
  /** The T2 subject's fact sheet: the grade counts the information the dialogue obtained. */
  sujet?: OralSubject;
  /** Stored production kind; `EO_T2_LIVE` for T2 live sessions. Defaults to `tache`. */
  kind?: string;
  /** Extra facts stored with the production (e.g. rule-monitor counts, subject id). */
  meta?: Record<string, unknown>;
  /** Path of the session recording, stored with the production. */
  audioPath?: string;
  signal?: AbortSignal;
}

export interface WrittenCorrectionRequest {
  candidateId: string;
  tache: WrittenTask;
  consigne: string;
  texte: string;
  /** Extra facts stored with the production (e.g. the practice subject's id and title). */
  meta?: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface CorrectionOutcome {
  /** Valid report (schema-checked); `detectorsOnly` says it comes from the detectors alone. */
  report: Record<string, unknown> & { detectorsOnly?: boolean; detectorsOnlyReason?: string };
  productionId: string;
}

export interface CorrectionService {
  correctWritten(req: WrittenCorrectionRequest): Promise<CorrectionOutcome>;
  /** Never rejects for a model failure: falls back to the detectors-only report. */
  correctOral(req: OralCorrectionRequest): Promise<CorrectionOutcome>;
}
