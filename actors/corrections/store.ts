import { randomUUID } from 'node:crypto';
import type { Db, Migration } from '../../core/store/db.js';
import type { Production } from './production.js';
import type { Report } from './report.js';

/**
 * Productions and their reports in SQLite (versions 200–299). Errors are also kept one per row so
 * that patterns (≥ 3 of the last 5 productions) and the `autre` review are plain queries.
 */
export const CORRECTION_MIGRATIONS: Migration[] = [
  {
    version: 200,
    name: 'corrections_productions',
    up: `
      CREATE TABLE correction_productions (
        id TEXT PRIMARY KEY,
        candidate_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        tache TEXT NOT NULL,
        consigne TEXT NOT NULL,
        texte TEXT,
        transcript TEXT,
        report TEXT NOT NULL,
        source TEXT NOT NULL,
        model TEXT,
        meta TEXT,
        audio_path TEXT,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      );
      CREATE INDEX correction_productions_candidate ON correction_productions (candidate_id, created_at);
      CREATE TABLE correction_errors (
        production_id TEXT NOT NULL REFERENCES correction_productions(id) ON DELETE CASCADE,
        candidate_id TEXT NOT NULL,
        code TEXT NOT NULL,
        critere TEXT NOT NULL,
        description TEXT,
        origine TEXT NOT NULL
      );
      CREATE INDEX correction_errors_production ON correction_errors (production_id);
      CREATE INDEX correction_errors_autre ON correction_errors (code) WHERE code = 'autre';
    `,
  },
];

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

export class CorrectionStore {
  constructor(private readonly db: Db) {}

  /** One transaction: the production and its error rows, or nothing. */
  save(input: SaveProductionInput): string {
    const id = randomUUID();
    const p = input.production;
    const insert = this.db.prepare(`INSERT INTO correction_productions
      (id, candidate_id, kind, tache, consigne, texte, transcript, report, source, model, meta, audio_path, created_at)
      VALUES (@id, @candidate, @kind, @tache, @consigne, @texte, @transcript, @report, @source, @model, @meta, @audio, COALESCE(@createdAt, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`);
    const insertError = this.db.prepare('INSERT INTO correction_errors (production_id, candidate_id, code, critere, description, origine) VALUES (?, ?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      insert.run({
        id,
        candidate: input.candidateId,
        kind: input.kind ?? p.tache,
        tache: p.tache,
        consigne: p.consigne,
        texte: p.epreuve === 'EE' ? p.texte : null,
        transcript: p.epreuve === 'EO' ? JSON.stringify(p.transcript) : null,
        report: JSON.stringify(input.report),
        source: input.report.source,
        model: input.report.model ?? null,
        meta: input.meta ? JSON.stringify(input.meta) : null,
        audio: input.audioPath ?? null,
        createdAt: input.createdAt ?? null,
      });
      for (const e of input.report.erreurs) insertError.run(id, input.candidateId, e.code, e.critere, e.description, e.origine);
    })();
    return id;
  }

  get(id: string): StoredProduction | undefined {
    const row = this.db.prepare('SELECT * FROM correction_productions WHERE id = ?').get(id) as Row | undefined;
    return row ? toStored(row) : undefined;
  }

  count(): number {
    return this.db.prepare('SELECT COUNT(*) FROM correction_productions').pluck().get() as number;
  }

  /** The candidate's last `n` productions, newest first, each with its set of codes. */
  recentCodes(candidateId: string, n: number): Array<{ id: string; createdAt: string; codes: Array<{ code: string; critere: string }> }> {
    const prods = this.db
      .prepare('SELECT id, created_at FROM correction_productions WHERE candidate_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?')
      .all(candidateId, n) as Array<{ id: string; created_at: string }>;
    const codesOf = this.db.prepare('SELECT DISTINCT code, critere FROM correction_errors WHERE production_id = ?');
    return prods.map((p) => ({ id: p.id, createdAt: p.created_at, codes: codesOf.all(p.id) as Array<{ code: string; critere: string }> }));
  }

  /** Every `autre` description observed, newest first. */
  autreDescriptions(): Array<{ critere: string; description: string; productionId: string }> {
    return (this.db
      .prepare(`SELECT e.critere, e.description, e.production_id FROM correction_errors e JOIN correction_productions p ON p.id = e.production_id
        WHERE e.code = 'autre' AND e.description IS NOT NULL ORDER BY p.created_at DESC, p.rowid DESC`)
      .all() as Array<{ critere: string; description: string; production_id: string }>).map((r) => ({ critere: r.critere, description: r.description, productionId: r.production_id }));
  }
}

function toStored(r: Row): StoredProduction {
  return {
    id: r.id, candidateId: r.candidate_id, kind: r.kind, tache: r.tache, consigne: r.consigne, texte: r.texte,
    transcript: r.transcript ? JSON.parse(r.transcript) : null, report: JSON.parse(r.report) as Report, source: r.source,
    model: r.model, meta: r.meta ? (JSON.parse(r.meta) as Record<string, unknown>) : null, audioPath: r.audio_path, createdAt: r.created_at,
  };
}
