import { sql } from 'kysely';
import type { PortableMigration } from '../../core/store/sqlStore.js';

/**
 * T2's tables on the store port (versions 400–499), written once with Kysely's schema builder and
 * compiled for SQLite or Postgres. 400–402 keep the numbers of the SQLite-only migrations they
 * replace: a SQLite file that already has them is not migrated again.
 */
export const T2_MIGRATIONS: PortableMigration[] = [
  {
    version: 400,
    name: 't2_sujets',
    up: (k) => [
      k.schema.createTable('t2_sujets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('titre', 'text', (c) => c.notNull())
        .addColumn('consigne', 'text', (c) => c.notNull())
        .addColumn('contexte', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('tache', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('fact_sheet', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
        .addCheckConstraint('t2_sujets_tache', sql`tache = 'EO_T2'`)
        .addCheckConstraint('t2_sujets_mode', sql`mode = 'entrainement'`),
    ],
  },
  {
    version: 401,
    name: 't2_sessions',
    up: (k, dialect) => {
      let sessions = k.schema.createTable('t2_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('candidate_id', 'text', (c) => c.notNull())
        .addColumn('sujet_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('end_reason', 'text')
        .addColumn('production_id', 'text')
        .addColumn('audio_path', 'text')
        .addColumn('audio_bytes', 'integer')
        .addColumn('transcript', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('rules', 'text')
        .addColumn('usage', 'text')
        .addColumn('report', 'text')
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('ended_at', 'text');
      // Postgres has no rowid: `seq` orders sessions started in the same second.
      if (dialect === 'postgres') sessions = sessions.addColumn('seq', 'bigserial', (c) => c.notNull());
      return [
        sessions,
        k.schema.createIndex('t2_sessions_candidate').on('t2_sessions').column('candidate_id'),
        k.schema.createIndex('t2_sessions_production').on('t2_sessions').column('production_id'),
      ];
    },
  },
  {
    // Rows are written at the start (status `live`) and per turn: the recovery at start and the
    // grading of sessions left ungraded by a stop look them up by status.
    version: 402,
    name: 't2_sessions_status',
    up: (k) => [k.schema.createIndex('t2_sessions_status').on('t2_sessions').column('status')],
  },
  {
    // Several instances on one database: the row says which one ran the session (and wrote its
    // recording), so a restart recovers its own rows and not a live session of another instance.
    version: 403,
    name: 't2_sessions_instance',
    up: (k) => [k.schema.alterTable('t2_sessions').addColumn('instance_id', 'text')],
  },
  {
    // Claims with an expiry, renewed while their instance runs (actors/t2/claims.ts): one live
    // session per candidate across instances, one grader per session, which instances are alive.
    version: 404,
    name: 't2_claims',
    up: (k) => [
      k.schema.createTable('t2_claims')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('instance_id', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text')
        .addColumn('expires_at', 'bigint', (c) => c.notNull()),
      k.schema.createIndex('t2_claims_instance').on('t2_claims').column('instance_id'),
    ],
  },
  {
    // A drain saves a session before its WAV is assembled (docs/operations.md § Stop): the row
    // says its recording is still a journal (1), so readers answer 409 and a later start or sweep
    // assembles it — found by the row, not by listing files, since a live session's journal on
    // another instance sharing the folder looks the same.
    version: 405,
    name: 't2_sessions_recording_pending',
    up: (k) => [k.schema.alterTable('t2_sessions').addColumn('recording_pending', 'integer')],
  },
  {
    // A live session outlives its instance (docs/scaling.md § A live T2 session survives its
    // instance): what another instance needs to take it over — the exam's absolute end (epoch
    // ms), the last Gemini Live resumption handle — and since when it awaits a taker (epoch ms;
    // null while its instance holds it).
    version: 406,
    name: 't2_sessions_takeover',
    up: (k) => [
      k.schema.alterTable('t2_sessions').addColumn('exam_ends_at', 'bigint'),
      k.schema.alterTable('t2_sessions').addColumn('live_handle', 'text'),
      k.schema.alterTable('t2_sessions').addColumn('away_since', 'bigint'),
    ],
  },
];
