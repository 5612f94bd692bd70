import { z } from 'zod';
import type { Logger } from '../../core/log.js';
import { migrate, type Db, type Migration } from '../../core/store/db.js';
import type { ChatSettings } from './contract.js';

/**
 * The two ways a docs answer gets its settings (docs/docs-assistant.md#where-an-answers-settings-come-from):
 *  - "l'assistant" (/assistant): configuration defaults overridden by the visitor's session
 *    (forAssistant), one set per browser;
 *  - "le chat" embedded in /docs: the ChatConfig row an admin saved at /admin/chat/params
 *    (forEmbeddedChat), falling back to the configuration defaults until one is saved.
 */

export const chatSettingsSchema = z.object({
  model: z
    .string()
    .trim()
    .min(1, 'modèle requis')
    .max(100)
    .regex(/^[A-Za-z0-9._:/@-]+$/, 'lettres, chiffres et . _ : / @ - seulement'),
  k: z.coerce.number().int().min(1).max(50),
  threshold: z.coerce.number().min(0).max(1),
  temperature: z.coerce.number().min(0).max(1),
  maxTokens: z.coerce.number().int().min(16).max(8192),
  historyTurns: z.coerce.number().int().min(0).max(20),
});

/** Partial overrides as stored for a visitor; anything invalid in storage is dropped, not trusted. */
export const chatSettingsOverridesSchema = chatSettingsSchema.partial();

export type ChatSettingsOverrides = z.infer<typeof chatSettingsOverridesSchema>;

export function forAssistant(defaults: ChatSettings, session: ChatSettingsOverrides | undefined): ChatSettings {
  return { ...defaults, ...(session ?? {}) };
}

export function forEmbeddedChat(defaults: ChatSettings, stored: ChatSettings | undefined): ChatSettings {
  return stored ?? defaults;
}

export const chatConfigMigrations: Migration[] = [
  {
    version: 302,
    name: 'docs_chat_config',
    up: `CREATE TABLE chat_config (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      settings TEXT NOT NULL,
      updated_at TEXT NOT NULL DEFAULT (datetime('now'))
    )`,
  },
];

export class ChatConfigStore {
  private readonly getStmt;
  private readonly putStmt;
  private readonly delStmt;

  constructor(db: Db, logger?: Logger) {
    migrate(db, chatConfigMigrations, logger);
    this.getStmt = db.prepare<[], { settings: string; updated_at: string }>('SELECT settings, updated_at FROM chat_config WHERE id = 1');
    this.putStmt = db.prepare(
      `INSERT INTO chat_config (id, settings, updated_at) VALUES (1, ?, datetime('now'))
       ON CONFLICT(id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at`,
    );
    this.delStmt = db.prepare('DELETE FROM chat_config WHERE id = 1');
  }

  /** The saved ChatConfig, or undefined when none was saved (or the row no longer validates). */
  get(): { settings: ChatSettings; updatedAt: string } | undefined {
    const row = this.getStmt.get();
    if (!row) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(row.settings);
    } catch {
      return undefined;
    }
    const parsed = chatSettingsSchema.safeParse(raw);
    return parsed.success ? { settings: parsed.data, updatedAt: row.updated_at } : undefined;
  }

  save(settings: ChatSettings): void {
    this.putStmt.run(JSON.stringify(chatSettingsSchema.parse(settings)));
  }

  reset(): void {
    this.delStmt.run();
  }
}
