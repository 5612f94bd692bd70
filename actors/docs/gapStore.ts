import { sql } from 'kysely';
import type { PortableMigration, Store } from '../../core/store/sqlStore.js';
import { analyzeQuery } from '../retrieval/analyze.js';
import { stem } from '../retrieval/stem.js';

/**
 * Coverage gaps for the people who write the docs: the questions the assistant refused or answered
 * with confidence "low", kept `retentionDays` days (docs/docs-assistant.md § Coverage gaps), listed
 * at /admin/docs/gaps grouped by what they asked. A group is the question's informative words,
 * stemmed and sorted: « Comment changer le port HTTP ? » and « changer port http » are one group.
 */
export type GapOutcome = 'refused' | 'low';

/** A sentence the claim check removed from an answer, with the question it answered. */
export interface DroppedClaim {
  question: string;
  sentence: string;
  at: string;
}

export interface GapGroup {
  /** The group's key: its informative stems, sorted. */
  topic: string;
  /** The latest question asked in this group, as written. */
  question: string;
  count: number;
  refused: number;
  low: number;
  /** ISO time of the latest question of the group. */
  lastAsked: string;
}

type GapTables = {
  docs_gaps: { id: string; asked_at: string; topic: string; question: string; lang: string; outcome: string; detail: string | null };
};

export const GAP_MIGRATIONS: PortableMigration[] = [
  {
    version: 320,
    name: 'docs_coverage_gaps',
    up: (k) => [
      k.schema.createTable('docs_gaps')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('asked_at', 'text', (c) => c.notNull())
        .addColumn('topic', 'text', (c) => c.notNull())
        .addColumn('question', 'text', (c) => c.notNull())
        .addColumn('lang', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        // For outcome `unsupported`: the sentence the claim check removed.
        .addColumn('detail', 'text'),
      k.schema.createIndex('docs_gaps_asked_at').on('docs_gaps').column('asked_at'),
    ],
  },
];

/** What a question asks about, for grouping: its informative words, stemmed (French), sorted, deduplicated. */
export function gapTopic(question: string): string {
  const stems = [...new Set(analyzeQuery(question).map((t) => stem(t.word, 'fr')))].sort();
  return stems.length > 0 ? stems.join(' ') : question.trim().toLowerCase().slice(0, 80);
}

/** Longest question kept: a pasted page is not a question, and the table is read by people. */
const MAX_QUESTION_CHARS = 500;

export class GapStore {
  private readonly db;
  private seq = 0;

  constructor(
    private readonly store: Store,
    private readonly opts: { retentionDays: number; now?: () => Date },
  ) {
    this.db = store.db.withTables<GapTables>();
  }

  private now(): Date {
    return this.opts.now ? this.opts.now() : new Date();
  }

  private id(at: Date): string {
    return `${at.getTime().toString(36)}-${process.pid.toString(36)}-${(this.seq++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  }

  /** Records one refused or low-confidence question and drops what is past retention. */
  async record(question: string, lang: 'fr' | 'en', outcome: GapOutcome): Promise<void> {
    const at = this.now();
    const text = question.trim().slice(0, MAX_QUESTION_CHARS);
    await this.store.writeAll([
      this.db.insertInto('docs_gaps').values({ id: this.id(at), asked_at: at.toISOString(), topic: gapTopic(text), question: text, lang, outcome, detail: null }),
      this.db.deleteFrom('docs_gaps').where('asked_at', '<', this.since(this.opts.retentionDays)),
    ]);
  }

  /** Records the sentences the claim check removed from an answer (the admin reads them, visitors never do). */
  async recordDropped(question: string, lang: 'fr' | 'en', sentences: readonly string[]): Promise<void> {
    if (sentences.length === 0) return;
    const at = this.now();
    const text = question.trim().slice(0, MAX_QUESTION_CHARS);
    await this.store.writeAll([
      ...sentences.map((s) => this.db.insertInto('docs_gaps').values({ id: this.id(at), asked_at: at.toISOString(), topic: gapTopic(text), question: text, lang, outcome: 'unsupported', detail: s.slice(0, MAX_QUESTION_CHARS) })),
      this.db.deleteFrom('docs_gaps').where('asked_at', '<', this.since(this.opts.retentionDays)),
    ]);
  }

  /** The removed sentences of the last `days` days, latest first. */
  async dropped(days: number, limit = 100): Promise<DroppedClaim[]> {
    const rows = await this.db
      .selectFrom('docs_gaps')
      .select(['question', 'detail', 'asked_at'])
      .where('outcome', '=', 'unsupported')
      .where('asked_at', '>=', this.since(Math.min(days, this.opts.retentionDays)))
      .orderBy('asked_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ question: r.question, sentence: r.detail ?? '', at: r.asked_at }));
  }

  private since(days: number): string {
    return new Date(this.now().getTime() - days * 86_400_000).toISOString();
  }

  /** Groups of the last `days` days, most asked first, then most recent. */
  async groups(days: number, limit = 200): Promise<GapGroup[]> {
    const rows = await this.db
      .selectFrom('docs_gaps')
      .select(({ fn }) => [
        'topic',
        fn.countAll<number>().as('count'),
        fn.sum<number>(sql`case when outcome = 'refused' then 1 else 0 end`).as('refused'),
        fn.max('asked_at').as('lastAsked'),
      ])
      .where('outcome', 'in', ['refused', 'low'])
      .where('asked_at', '>=', this.since(Math.min(days, this.opts.retentionDays)))
      .groupBy('topic')
      .orderBy('count', 'desc')
      .orderBy('lastAsked', 'desc')
      .limit(limit)
      .execute();
    const out: GapGroup[] = [];
    for (const r of rows) {
      const latest = await this.db.selectFrom('docs_gaps').select('question').where('topic', '=', r.topic).where('outcome', 'in', ['refused', 'low']).orderBy('asked_at', 'desc').limit(1).executeTakeFirst();
      const count = Number(r.count);
      const refused = Number(r.refused);
      out.push({ topic: r.topic, question: latest?.question ?? r.topic, count, refused, low: count - refused, lastAsked: String(r.lastAsked) });
    }
    return out;
  }
}
