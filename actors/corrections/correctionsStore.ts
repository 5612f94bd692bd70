import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { PortableMigration, Store } from '../../core/store/sqlStore.js';
import type { Production } from '../../prompts/corrections/tasks.js';
import type { Report } from '../../machines/correctionReport.js';

/**
 * Productions and their reports in SQLite (versions 200–299). Errors are also kept one per row so
 * that patterns (≥ 3 of the last 5 productions) and the `autre` review are plain queries.
 */
export const CORRECTION_MIGRATIONS: PortableMigration[] = [
  {
    version: 200,
    name: 'corrections_productions',
    up: (k, dialect) => {
      // Postgres has no rowid: `seq` orders productions saved in the same millisecond.
      let productions = k.schema.createTable('correction_productions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('candidate_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('tache', 'text', (c) => c.notNull())
        .addColumn('consigne', 'text', (c) => c.notNull())
        .addColumn('texte', 'text')
        .addColumn('transcript', 'text')
        .addColumn('report', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('model', 'text')
        .addColumn('meta', 'text')
        .addColumn('audio_path', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull());
      if (dialect === 'postgres') productions = productions.addColumn('seq', 'bigserial', (c) => c.notNull());
      return [
        productions,
        k.schema.createIndex('correction_productions_candidate').on('correction_productions').columns(['candidate_id', 'created_at']),
        k.schema.createTable('correction_errors')
          .addColumn('production_id', 'text', (c) => c.notNull().references('correction_productions.id').onDelete('cascade'))
          .addColumn('candidate_id', 'text', (c) => c.notNull())
          .addColumn('code', 'text', (c) => c.notNull())
          .addColumn('critere', 'text', (c) => c.notNull())
          .addColumn('description', 'text')
          .addColumn('origine', 'text', (c) => c.notNull()),
        k.schema.createIndex('correction_errors_production').on('correction_errors').column('production_id'),
        k.schema.createIndex('correction_errors_autre').on('correction_errors').column('code').where(sql.ref('code'), '=', sql.lit('autre')),
      ];
    },
  },
];

type CorrectionTables = {
  correction_productions: Row;
  correction_errors: { production_id: string; candidate_id: string; code: string; critere: string; description: string | null; origine: string };
};

export interface SaveProductionInput {
  candidateId: string;
  production: Production;
  report: Report;
  /** Stored production kind (`EO_T2_LIVE` for T2 live); defaults to the task. */
  kind?: string;
  meta?: Record<string, unknown>;
  audioPath?: string;
  /** For tests and imports; default now. */
  createdAt?: string;
}

export interface StoredProduction {
  id: string;
  candidateId: string;
  kind: string;
  tache: string;
  consigne: string;
  texte: string | null;
  transcript: unknown;
  report: Report;
  source: string;
  model: string | null;
  meta: Record<string, unknown> | null;
  audioPath: string | null;
  createdAt: string;
}

interface Row {
  id: string; candidate_id: string; kind: string; tache: string; consigne: string; texte: string | null; transcript: string | null;
  report: string; source: string; model: string | null; meta: string | null; audio_path: string | null; created_at: string;
}

/** Productions on the app's store (SQLite or Postgres, core/store/sqlStore.ts); every call is async. */
export class CorrectionStore {
  private readonly db: Kysely<CorrectionTables>;
  /** SQLite orders same-millisecond rows by rowid, Postgres by its `seq` column. */
  private readonly tieBreak;

  constructor(private readonly store: Store) {
    this.db = store.db.withTables<CorrectionTables>();
    this.tieBreak = sql.raw(store.dialect === 'sqlite' ? 'rowid' : 'seq');
  }

  /** One transaction: the production and its error rows, or nothing. */
  async save(input: SaveProductionInput): Promise<string> {
    const id = randomUUID();
    const p = input.production;
    const production = this.db.insertInto('correction_productions').values({
      id,
      candidate_id: input.candidateId,
      kind: input.kind ?? p.tache,
      tache: p.tache,
      consigne: p.consigne,
      texte: p.epreuve === 'EE' ? p.texte : null,
      transcript: p.epreuve === 'EO' ? JSON.stringify(p.transcript) : null,
      report: JSON.stringify(input.report),
      source: input.report.source,
      model: input.report.model ?? null,
      meta: input.meta ? JSON.stringify(input.meta) : null,
      audio_path: input.audioPath ?? null,
      created_at: input.createdAt ?? new Date().toISOString(),
    });
    const errors = input.report.erreurs.length > 0
      ? [this.db.insertInto('correction_errors').values(input.report.erreurs.map((e) => ({
        production_id: id, candidate_id: input.candidateId, code: e.code, critere: e.critere, description: e.description, origine: e.origine,
      })))]
      : [];
    await this.store.writeAll([production, ...errors]);
    return id;
  }

  async get(id: string): Promise<StoredProduction | undefined> {
    const row = await this.db.selectFrom('correction_productions').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toStored(row) : undefined;
  }

  async count(): Promise<number> {
    const r = await this.db.selectFrom('correction_productions').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** The candidate's last `n` productions, newest first, each with its set of codes. */
  async recentCodes(candidateId: string, n: number): Promise<Array<{ id: string; createdAt: string; codes: Array<{ code: string; critere: string }> }>> {
    const prods = await this.db.selectFrom('correction_productions').select(['id', 'created_at'])
      .where('candidate_id', '=', candidateId).orderBy('created_at', 'desc').orderBy(this.tieBreak, 'desc').limit(n).execute();
    if (prods.length === 0) return [];
    const codes = await this.db.selectFrom('correction_errors').select(['production_id', 'code', 'critere']).distinct()
      .where('production_id', 'in', prods.map((p) => p.id)).execute();
    return prods.map((p) => ({
      id: p.id, createdAt: p.created_at,
      codes: codes.filter((c) => c.production_id === p.id).map((c) => ({ code: c.code, critere: c.critere })),
    }));
  }

  /**
   * The candidate's written productions (tasks EE_T1–T3), newest first, at most `limit`: what
   * « Mes séances » lists beside the oral sessions.
   */
  async listWritten(candidateId: string, limit = 200): Promise<StoredProduction[]> {
    const rows = await this.db.selectFrom('correction_productions').selectAll()
      .where('candidate_id', '=', candidateId).where('tache', 'in', ['EE_T1', 'EE_T2', 'EE_T3'])
      .orderBy('created_at', 'desc').orderBy(this.tieBreak, 'desc').limit(limit).execute();
    return rows.map(toStored);
  }

  /** One of the candidate's productions; another candidate's answers like a missing one. */
  async getOwn(candidateId: string, id: string): Promise<StoredProduction | undefined> {
    const row = await this.db.selectFrom('correction_productions').selectAll()
      .where('id', '=', id).where('candidate_id', '=', candidateId).executeTakeFirst();
    return row ? toStored(row) : undefined;
  }

  /** Every `autre` description observed, newest first. */
  async autreDescriptions(): Promise<Array<{ critere: string; description: string; productionId: string }>> {
    const rows = await this.db.selectFrom('correction_errors as e').innerJoin('correction_productions as p', 'p.id', 'e.production_id')
      .select(['e.critere', 'e.description', 'e.production_id'])
      .where('e.code', '=', 'autre').where('e.description', 'is not', null)
      .orderBy('p.created_at', 'desc').orderBy(sql.raw(this.store.dialect === 'sqlite' ? 'p.rowid' : 'p.seq'), 'desc').execute();
    return rows.map((r) => ({ critere: r.critere, description: r.description ?? '', productionId: r.production_id }));
  }
}

function toStored(r: Row): StoredProduction {
  return {
    id: r.id, candidateId: r.candidate_id, kind: r.kind, tache: r.tache, consigne: r.consigne, texte: r.texte,
    transcript: r.transcript ? JSON.parse(r.transcript) : null, report: JSON.parse(r.report) as Report, source: r.source,
    model: r.model, meta: r.meta ? (JSON.parse(r.meta) as Record<string, unknown>) : null, audioPath: r.audio_path, createdAt: r.created_at,
  };
}
