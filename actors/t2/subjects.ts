import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Kysely } from 'kysely';
import type { Store } from '../../core/store/sqlStore.js';

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

type SubjectTables = { t2_sujets: SubjectRow & { tache: string; mode: string; created_at: string } };

/** Subjects on the store port (SQLite or Postgres); every read and write is async. */
export class SubjectStore {
  private readonly db: Kysely<SubjectTables>;
  /**
   * Every subject this instance read, by id: the interlocutors build their prompt synchronously
   * from the subject the session loaded (`loadSubject` runs before the interlocutor starts).
   */
  private readonly seen = new Map<string, Subject>();

  constructor(private readonly store: Store) {
    this.db = store.db.withTables<SubjectTables>();
  }

  async list(): Promise<Subject[]> {
    const rows = await this.db.selectFrom('t2_sujets').selectAll().orderBy('titre').execute();
    return rows.map((r) => this.remember(fromRow(r)));
  }

  async get(id: string): Promise<Subject | undefined> {
    const row = await this.db.selectFrom('t2_sujets').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? this.remember(fromRow(row)) : undefined;
  }

  /** The subject as this instance last read it (list or get), without a round trip. */
  cached(id: string): Subject | undefined {
    return this.seen.get(id);
  }

  /** Validates then inserts (or replaces, same id). Throws a ZodError on bad input. */
  async add(input: unknown): Promise<Subject> {
    const s = subjectInputSchema.parse(input);
    const subject: Subject = { ...s, id: s.id ?? randomUUID(), tache: 'EO_T2', mode: 'entrainement' };
    const values = {
      id: subject.id, titre: subject.titre, consigne: subject.consigne, contexte: subject.contexte, role: subject.role,
      tache: 'EO_T2', mode: 'entrainement', fact_sheet: JSON.stringify(subject.factSheet), created_at: new Date().toISOString(),
    };
    await this.store.writeAll([
      this.db.insertInto('t2_sujets').values(values).onConflict((oc) => oc.column('id').doUpdateSet({
        titre: values.titre, consigne: values.consigne, contexte: values.contexte, role: values.role, fact_sheet: values.fact_sheet,
      })),
    ]);
    return this.remember(subject);
  }

  /**
   * Inserts the given subjects that are not there yet (by id); returns how many were added.
   * Several instances seeding at once each insert-if-absent: nothing is duplicated or overwritten.
   */
  async seed(subjects: SubjectInput[]): Promise<number> {
    let added = 0;
    for (const input of subjects) {
      const s = subjectInputSchema.parse(input);
      if (!s.id) continue;
      const r = await this.db.insertInto('t2_sujets').values({
        id: s.id, titre: s.titre, consigne: s.consigne, contexte: s.contexte, role: s.role,
        tache: 'EO_T2', mode: 'entrainement', fact_sheet: JSON.stringify(s.factSheet), created_at: new Date().toISOString(),
      }).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst();
      added += Number(r.numInsertedOrUpdatedRows ?? 0n);
    }
    return added;
  }

  private remember(s: Subject): Subject {
    this.seen.set(s.id, s);
    return s;
  }
}
