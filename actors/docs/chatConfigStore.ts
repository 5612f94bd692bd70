import type { Logger } from '../../core/log.js';
import { sql, type Compilable, type Kysely } from 'kysely';
import { RECONNECTED, type PortableMigration, type Store } from '../../core/store/sqlStore.js';
import type { ChatSettings } from '../../machines/chatContract.js';
import { chatSettingsSchema, storedSettingsSchema, type SavedChatConfig } from '../../machines/chatSettings.js';


export const chatConfigMigrations: PortableMigration[] = [
  {
    version: 302,
    name: 'docs_chat_config',
    up: (k) => [
      k.schema.createTable('chat_config')
        .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
        .addColumn('settings', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull()),
    ],
  },
  {
    // The high bound `confident` was a lexical score and is now a probability (the learned
    // confidence model, bench/journal/2026-12-docs-assistant.md § Fifth round): a value saved
    // under the old meaning (0.5 answered "high" far less often than the probability 0.5 does) is
    // dropped, so the saved ChatConfig and each visitor's overrides fall back to the default bound
    // until set again.
    version: 303,
    name: 'docs_confident_bound_is_a_probability',
    up: (k, dialect) => {
      const db = k as unknown as Kysely<ChatConfigTables & { visitor_sessions: { settings: string } }>;
      const withoutConfident = dialect === 'postgres' ? sql<string>`(settings::jsonb - 'confident')::text` : sql<string>`json_remove(settings, '$.confident')`;
      return [
        db.updateTable('chat_config').set({ settings: withoutConfident }),
        db.updateTable('visitor_sessions').set({ settings: withoutConfident }),
      ];
    },
  },
];

type ChatConfigTables = {
  chat_config: { id: number; settings: string; updated_at: string };
};

/** Postgres NOTIFY channel: "the saved ChatConfig changed, re-read it". */
const CHAT_CONFIG_CHANNEL = 'palabre_chat_config';

type Saved = SavedChatConfig;

/**
 * The saved ChatConfig, read on every docs answer, so kept in memory: `get()` is synchronous. A
 * save writes the row, then NOTIFYs; every instance (this one included) re-reads the row when the
 * notify arrives, so a change made on one instance applies on all within the notify's latency
 * (milliseconds), without polling. On SQLite the notify stays in-process.
 */
export class ChatConfigStore {
  private readonly db: Kysely<ChatConfigTables>;
  private cache: Saved | undefined;
  /** Resolves once the saved row is loaded and this instance listens for changes. */
  readonly ready: Promise<void>;
  private unlisten: (() => void) | undefined;

  constructor(private readonly store: Store, private readonly logger?: Logger) {
    this.db = store.db.withTables<ChatConfigTables>();
    this.ready = (async () => {
      const reload = (): void => { void this.reload(); };
      const off = [await store.listen(CHAT_CONFIG_CHANNEL, reload), await store.listen(RECONNECTED, reload)];
      this.unlisten = () => { for (const f of off) f(); };
      await this.reload();
    })();
  }

  /** The saved ChatConfig, or undefined when none was saved (or the row no longer validates). */
  get(): Saved | undefined {
    return this.cache;
  }

  /** Re-reads the row (on a notify from any instance). */
  async reload(): Promise<void> {
    try {
      const row = await this.db.selectFrom('chat_config').select(['settings', 'updated_at']).where('id', '=', 1).executeTakeFirst();
      this.cache = row ? parseSaved(row.settings, row.updated_at) : undefined;
    } catch (err) {
      this.logger?.error({ err: (err as Error).message }, 'ChatConfig could not be re-read; keeping the previous one');
    }
  }

  async save(settings: ChatSettings): Promise<void> {
    const valid = chatSettingsSchema.parse(settings);
    const updatedAt = new Date().toISOString().replace('T', ' ').slice(0, 19);
    const settingsJson = JSON.stringify(valid);
    await this.commit(
      this.db.insertInto('chat_config').values({ id: 1, settings: settingsJson, updated_at: updatedAt })
        .onConflict((oc) => oc.column('id').doUpdateSet({ settings: settingsJson, updated_at: updatedAt })),
      { settings: valid, updatedAt },
    );
  }

  async reset(): Promise<void> {
    await this.commit(this.db.deleteFrom('chat_config').where('id', '=', 1), undefined);
  }

  /** On SQLite the write is done when writeAll returns, so `get()` sees it at once (as before). */
  private async commit(query: Compilable, next: Saved | undefined): Promise<void> {
    const write = this.store.writeAll([query]);
    if (this.store.dialect === 'sqlite') this.cache = next;
    await write;
    this.cache = next;
    await this.store.notify(CHAT_CONFIG_CHANNEL, next?.updatedAt ?? 'reset');
  }

  close(): void {
    this.unlisten?.();
  }
}

function parseSaved(settings: string, updatedAt: string): Saved | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(settings);
  } catch {
    return undefined;
  }
  const parsed = storedSettingsSchema.safeParse(raw);
  return parsed.success ? { settings: parsed.data, updatedAt } : undefined;
}
