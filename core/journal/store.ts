import { sql, type Compilable, type ExpressionBuilder, type OnConflictDatabase, type OnConflictTables } from 'kysely';
import { compiledOnce } from '../store/compiledOnce.js';
import { orphanSpills, readSpill, removeSpill } from './spill.js';
import type { PortableMigration, Store } from '../store/sqlStore.js';
import { journalStepSchema, type Journal, type JournalStep, type JournalSummary } from './step.js';

/**
 * The journal's tables, on the store port (SQLite file or Postgres). A conversation is one row of
 * `journal_conversations`; its steps are rows of `journal_steps`, one JSON document each.
 * Times are ISO strings (both dialects sort them alike); `last_at` drives the retention sweep, so a
 * Skull device's conversation, which lives for days, is kept while it still talks.
 */
type JournalTables = {
  journal_conversations: {
    id: string;
    system_id: string;
    surface: string;
    machine: string;
    started_at: string;
    start_ms: number;
    ended_at: string | null;
    last_at: string;
    steps: number;
    input: string;
  };
  journal_steps: { conversation_id: string; seq: number; at_ms: number; body: string };
};

export const JOURNAL_MIGRATIONS: PortableMigration[] = [
  {
    version: 20,
    name: 'journal',
    up: (k) => [
      k.schema.createTable('journal_conversations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('system_id', 'text', (c) => c.notNull())
        .addColumn('surface', 'text', (c) => c.notNull())
        .addColumn('machine', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('start_ms', 'double precision', (c) => c.notNull())
        .addColumn('ended_at', 'text')
        .addColumn('last_at', 'text', (c) => c.notNull())
        .addColumn('steps', 'integer', (c) => c.notNull())
        .addColumn('input', 'text', (c) => c.notNull()),
      k.schema.createIndex('journal_conversations_last_at').on('journal_conversations').column('last_at'),
      k.schema.createIndex('journal_conversations_started_at').on('journal_conversations').column('started_at'),
      k.schema.createTable('journal_steps')
        .addColumn('conversation_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('at_ms', 'double precision', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('journal_steps_pk', ['conversation_id', 'seq']),
    ],
  },
];

/** What the recorder writes in one flush. */
export interface JournalBatch {
  /** Conversations seen since the last flush: their header as it stands now. */
  conversations: Array<Omit<JournalSummary, 'steps'> & { startMs: number; lastAt: string; steps: number; input: unknown }>;
  steps: Array<{ conversationId: string; step: JournalStep }>;
}

/** Rows per INSERT: well under SQLite's bound on parameters (4 per row). */
const ROWS_PER_INSERT = 400;
/** Up to this many steps, one compiled-once statement each; beyond, multi-row inserts. */
const FEW = 8;
const STEP_REPLACED = (eb: ExpressionBuilder<OnConflictDatabase<JournalTables, 'journal_steps'>, OnConflictTables<'journal_steps'>>) => ({ at_ms: eb.ref('excluded.at_ms'), body: eb.ref('excluded.body') });

export class JournalStore {
  private readonly db;

  /** True when `write` has written by the time it returns its promise (SQLite: better-sqlite3 is synchronous). */
  readonly synchronous: boolean;

  /** SQLite: the database file, beside which the spill files are kept (core/journal/spill.ts). */
  readonly file: string | undefined;

  constructor(private readonly store: Store, opts: { file?: string | undefined } = {}) {
    this.db = store.db.withTables<JournalTables>();
    this.synchronous = store.dialect === 'sqlite';
    this.file = this.synchronous ? opts.file : undefined;
    this.upsertHead = compiledOnce(['id', 'system_id', 'surface', 'machine', 'started_at', 'start_ms', 'ended_at', 'last_at', 'steps', 'input'] as const, (p) =>
      this.db.insertInto('journal_conversations').values(p as unknown as JournalTables['journal_conversations']).onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ ended_at: eb.ref('excluded.ended_at'), last_at: eb.ref('excluded.last_at'), steps: eb.ref('excluded.steps') }))),
    );
    // A step written while in progress (`partial`, core/journal/durable.ts) is replaced by its whole version.
    this.upsertStep = compiledOnce(['conversation_id', 'seq', 'at_ms', 'body'] as const, (p) =>
      this.db.insertInto('journal_steps').values(p as unknown as JournalTables['journal_steps']).onConflict((oc) => oc.columns(['conversation_id', 'seq']).doUpdateSet(STEP_REPLACED)),
    );
  }

  private readonly upsertHead: ReturnType<typeof compiledOnce<'id' | 'system_id' | 'surface' | 'machine' | 'started_at' | 'start_ms' | 'ended_at' | 'last_at' | 'steps' | 'input'>>;
  private readonly upsertStep: ReturnType<typeof compiledOnce<'conversation_id' | 'seq' | 'at_ms' | 'body'>>;

  /** Writes one batch in one transaction: the steps and their conversations' headers. */
  async write(batch: JournalBatch): Promise<void> {
    if (batch.conversations.length === 0 && batch.steps.length === 0) return;
    await this.store.writeAll(this.queries(batch));
  }

  /** SQLite only: `write`, done (or thrown) before this returns. */
  writeNow(batch: JournalBatch): void {
    if (!this.synchronous) throw new Error('JournalStore.writeNow: only on SQLite');
    if (batch.conversations.length === 0 && batch.steps.length === 0) return;
    // better-sqlite3 runs the transaction inside writeAll's call: an error throws here.
    void this.store.writeAll(this.queries(batch));
  }

  /** Moves into SQLite what killed processes left in their spill files; returns how many files. */
  recoverSpills(): number {
    if (!this.file) return 0;
    const files = orphanSpills(this.file);
    for (const path of files) {
      // The recorder's own lines (core/journal/recorder.ts): JournalBatch objects.
      for (const batch of readSpill(path)) this.writeNow(batch as JournalBatch);
      removeSpill(path);
    }
    return files.length;
  }

  private queries(batch: JournalBatch): Compilable[] {
    const queries: Compilable[] = [];
    for (const c of batch.conversations) {
      queries.push(this.upsertHead({ id: c.id, system_id: c.systemId, surface: c.surface, machine: c.machine, started_at: c.startedAt, start_ms: c.startMs, ended_at: c.endedAt, last_at: c.lastAt, steps: c.steps, input: JSON.stringify(c.input ?? null) }));
    }
    if (batch.steps.length <= FEW) {
      // The write made while an effect waits (core/journal/durable.ts): statements compiled once.
      for (const { conversationId, step } of batch.steps) queries.push(this.upsertStep({ conversation_id: conversationId, seq: step.seq, at_ms: step.at, body: JSON.stringify(step) }));
    } else {
      for (let i = 0; i < batch.steps.length; i += ROWS_PER_INSERT) {
        const rows = batch.steps.slice(i, i + ROWS_PER_INSERT).map(({ conversationId, step }) => ({ conversation_id: conversationId, seq: step.seq, at_ms: step.at, body: JSON.stringify(step) }));
        queries.push(this.db.insertInto('journal_steps').values(rows).onConflict((oc) => oc.columns(['conversation_id', 'seq']).doUpdateSet(STEP_REPLACED)));
      }
    }
    return queries;
  }

  /**
   * SQLite: while `on`, the WAL is checkpointed by `checkpoint()` (the recorder's timer) instead of
   * by whichever commit crosses SQLite's threshold: a checkpoint copies pages and syncs the files,
   * and it must not land on the write made while a reply waits (core/journal/durable.ts).
   * Postgres: nothing to do.
   */
  async deferCheckpoints(on: boolean): Promise<void> {
    if (!this.synchronous) return;
    await sql`PRAGMA wal_autocheckpoint = ${sql.raw(on ? '0' : '1000')}`.execute(this.db);
  }

  /** SQLite: copies the WAL into the database file when no reader holds it back (PASSIVE). */
  async checkpoint(): Promise<void> {
    if (!this.synchronous) return;
    await sql`PRAGMA wal_checkpoint(PASSIVE)`.execute(this.db);
  }

  /** Recorded conversations, latest first. */
  async list(opts: { surface?: string | undefined; limit?: number } = {}): Promise<JournalSummary[]> {
    this.recoverSpills();
    // The header's count is written with the batches; steps written while an effect was leaving
    // may be ahead of it (a process killed before its next batch): the larger of the two holds.
    let q = this.db.selectFrom('journal_conversations')
      .select(['id', 'system_id', 'surface', 'machine', 'started_at', 'ended_at', 'steps'])
      .select((eb) => eb.selectFrom('journal_steps').select(sql<number>`coalesce(max(seq) + 1, 0)`.as('n')).whereRef('journal_steps.conversation_id', '=', 'journal_conversations.id').as('stored'));
    if (opts.surface) q = q.where('surface', '=', opts.surface);
    const rows = await q.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(opts.limit ?? 1000).execute();
    return rows.map((r) => ({ id: r.id, systemId: r.system_id, surface: r.surface, machine: r.machine, startedAt: r.started_at, endedAt: r.ended_at, steps: Math.max(Number(r.steps), Number(r.stored ?? 0)) }));
  }

  /** One conversation with its steps in order, or undefined when no conversation has this id. */
  async get(id: string): Promise<Journal | undefined> {
    this.recoverSpills();
    const head = await this.db.selectFrom('journal_conversations').selectAll().where('id', '=', id).executeTakeFirst();
    if (!head) return undefined;
    const rows = await this.db.selectFrom('journal_steps').select(['body']).where('conversation_id', '=', id).orderBy('seq').execute();
    return {
      id: head.id,
      systemId: head.system_id,
      surface: head.surface,
      machine: head.machine,
      startedAt: head.started_at,
      endedAt: head.ended_at,
      startMs: Number(head.start_ms),
      input: JSON.parse(head.input) as unknown,
      steps: rows.map((r) => journalStepSchema.parse(JSON.parse(r.body))),
    };
  }

  /** Deletes the conversations whose last step is older than `days` days; returns how many. */
  async sweep(days: number, now: Date = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - days * 86_400_000).toISOString();
    const old = await this.db.selectFrom('journal_conversations').select(['id']).where('last_at', '<', cutoff).execute();
    if (old.length === 0) return 0;
    const ids = old.map((r) => r.id);
    const queries = [];
    for (let i = 0; i < ids.length; i += ROWS_PER_INSERT) {
      const chunk = ids.slice(i, i + ROWS_PER_INSERT);
      queries.push(this.db.deleteFrom('journal_steps').where('conversation_id', 'in', chunk));
      queries.push(this.db.deleteFrom('journal_conversations').where('id', 'in', chunk));
    }
    await this.store.writeAll(queries);
    return ids.length;
  }

  /** Bytes of step JSON stored for one conversation (the bench's "bytes per conversation"). */
  async bytesOf(id: string): Promise<number> {
    const r = await this.db.selectFrom('journal_steps').select(sql<number>`coalesce(sum(length(body)), 0)`.as('n')).where('conversation_id', '=', id).executeTakeFirst();
    return Number(r?.n ?? 0);
  }
}
