import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db, Migration } from '../../core/store/db.js';

/**
 * T2 subjects (docs/t2-live.md#subjects): `consigne`, `contexte`, `role`, `tache` = EO_T2, `mode` = entrainement,
 * plus a fact sheet — what the interlocutor knows — appended to the prompt's {contexte} so every
 * answer is consistent, and used by the offline interlocutor to answer in text mode.
 */

export const factSchema = z.object({
  /** What the fact is about ("loyer", "horaires"…): shown in the prompt. */
  theme: z.string().min(2).max(80),
  /** Lower-case words that, in a question, point at this fact (offline matching). */
  keywords: z.array(z.string().min(2).max(40)).min(1).max(20),
  /** The interlocutor's answer: one or two sentences, 15–25 words, no question mark. */
  answer: z.string().min(10).max(400),
});
export type Fact = z.infer<typeof factSchema>;

export const subjectInputSchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{2,63}$/, 'lower-case letters, digits and dashes (3–64)').optional(),
  titre: z.string().min(3).max(120),
  consigne: z.string().min(20).max(2000),
  contexte: z.string().min(10).max(2000),
  role: z.string().min(5).max(300),
  tache: z.literal('EO_T2').default('EO_T2'),
  mode: z.literal('entrainement').default('entrainement'),
  factSheet: z.array(factSchema).min(3).max(40),
}).strict();
export type SubjectInput = z.input<typeof subjectInputSchema>;

export interface Subject {
  id: string;
  titre: string;
  consigne: string;
  contexte: string;
  role: string;
  tache: 'EO_T2';
  mode: 'entrainement';
  factSheet: Fact[];
}

export const t2Migrations: Migration[] = [
  {
    version: 400,
    name: 't2_sujets',
    up: `CREATE TABLE t2_sujets (
      id TEXT PRIMARY KEY,
      titre TEXT NOT NULL,
      consigne TEXT NOT NULL,
      contexte TEXT NOT NULL,
      role TEXT NOT NULL,
      tache TEXT NOT NULL CHECK (tache = 'EO_T2'),
      mode TEXT NOT NULL CHECK (mode = 'entrainement'),
      fact_sheet TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT (datetime('now'))
    )`,
  },
  {
    version: 401,
    name: 't2_sessions',
    up: `CREATE TABLE t2_sessions (
      id TEXT PRIMARY KEY,
      candidate_id TEXT NOT NULL,
      sujet_id TEXT NOT NULL,
      mode TEXT NOT NULL,
      status TEXT NOT NULL,
      end_reason TEXT,
      production_id TEXT,
      audio_path TEXT,
      audio_bytes INTEGER,
      transcript TEXT NOT NULL DEFAULT '[]',
      rules TEXT,
      usage TEXT,
      report TEXT,
      started_at TEXT NOT NULL,
      ended_at TEXT
    );
    CREATE INDEX t2_sessions_candidate ON t2_sessions(candidate_id);
    CREATE INDEX t2_sessions_production ON t2_sessions(production_id)`,
  },
  {
    // Rows are now written at the start (status `live`) and per turn: the recovery at start and
    // the grading of sessions left ungraded by a stop look them up by status.
    version: 402,
    name: 't2_sessions_status',
    up: `CREATE INDEX t2_sessions_status ON t2_sessions(status)`,
  },
];

interface SubjectRow {
  id: string;
  titre: string;
  consigne: string;
  contexte: string;
  role: string;
  fact_sheet: string;
}

function fromRow(row: SubjectRow): Subject {
  return {
    id: row.id,
    titre: row.titre,
    consigne: row.consigne,
    contexte: row.contexte,
    role: row.role,
    tache: 'EO_T2',
    mode: 'entrainement',
    factSheet: z.array(factSchema).parse(JSON.parse(row.fact_sheet)),
  };
}

export class SubjectStore {
  constructor(private readonly db: Db) {}

  list(): Subject[] {
    const rows = this.db.prepare('SELECT * FROM t2_sujets ORDER BY titre').all() as SubjectRow[];
    return rows.map(fromRow);
  }

  get(id: string): Subject | undefined {
    const row = this.db.prepare('SELECT * FROM t2_sujets WHERE id = ?').get(id) as SubjectRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  /** Validates then inserts (or replaces, same id). Throws a ZodError on bad input. */
  add(input: unknown): Subject {
    const s = subjectInputSchema.parse(input);
    const subject: Subject = { ...s, id: s.id ?? randomUUID(), tache: 'EO_T2', mode: 'entrainement' };
    this.db
      .prepare(
        `INSERT INTO t2_sujets (id, titre, consigne, contexte, role, tache, mode, fact_sheet) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET titre = excluded.titre, consigne = excluded.consigne, contexte = excluded.contexte,
           role = excluded.role, fact_sheet = excluded.fact_sheet`,
      )
      .run(subject.id, subject.titre, subject.consigne, subject.contexte, subject.role, 'EO_T2', 'entrainement', JSON.stringify(subject.factSheet));
    return subject;
  }

  /** Inserts the given subjects that are not there yet (by id); returns how many were added. */
  seed(subjects: SubjectInput[]): number {
    let added = 0;
    for (const s of subjects) {
      if (s.id && this.get(s.id)) continue;
      this.add(s);
      added++;
    }
    return added;
  }
}
