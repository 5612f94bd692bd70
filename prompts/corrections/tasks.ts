/**
 * The exam's tasks and what a candidate produces for one: the words the grading prompt, the
 * correction chart, its contract and the engines all speak.
 */

export const WRITTEN_TASKS = ['EE_T1', 'EE_T2', 'EE_T3'] as const;
export const ORAL_TASKS = ['EO_T1', 'EO_T2', 'EO_T3'] as const;
export type WrittenTask = (typeof WRITTEN_TASKS)[number];
export type OralTask = (typeof ORAL_TASKS)[number];
export type Epreuve = 'EE' | 'EO';

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

/** A production to grade: a written text, or the candidate's turns of an oral dialogue. */
export type Production =
  | { epreuve: 'EE'; tache: WrittenTask; consigne: string; texte: string }
  | { epreuve: 'EO'; tache: OralTask; consigne: string; transcript: TranscriptTurn[]; sujet?: OralSubject };
