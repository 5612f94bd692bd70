import type { AppContext } from '../../core/surfaceContract.js';

/**
 * Contract between the corrections surface (`actors/corrections/`) and its callers: the HTTP API
 * and the T2 live session, which grades its transcript at the end and stores the production.
 * The report's full zod schema lives in `actors/corrections/` (one source of truth); callers treat
 * it as opaque JSON to forward.
 */

export type WrittenTask = 'EE_T1' | 'EE_T2' | 'EE_T3';
export type OralTask = 'EO_T1' | 'EO_T2' | 'EO_T3';

export interface TranscriptTurn {
  speaker: 'candidate' | 'interlocutor';
  text: string;
  /** Milliseconds since the session start (optional for the HTTP API). */
  atMs?: number;
}

/**
 * What the candidate was asked to find out in a T2 role-play: the subject's fact sheet (what the
 * interlocutor knows). With it, the grade counts the facts the dialogue obtained; without it (the
 * HTTP API), the interlocutor's informative answers stand for them.
 */
export interface OralSubject {
  titre?: string;
  contexte?: string;
  faits: ReadonlyArray<{ theme: string; keywords: readonly string[]; answer: string }>;
}

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

/**
 * The corrections surface's port for the other surfaces (T2 grades its transcripts through it),
 * loaded explicitly: the engine module is imported when a surface first asks for the service, so
 * a process that never grades does not load it. The only value another surface may import from
 * actors/corrections/ (test/architecture/layers.ts).
 */
export async function loadCorrectionService(ctx: AppContext): Promise<CorrectionService> {
  const { createCorrectionService } = await import('./service.js');
  return createCorrectionService(ctx);
}
