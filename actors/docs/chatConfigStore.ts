import { z } from 'zod';
import type { Logger } from '../../core/log.js';
import { migrate, type Db, type Migration } from '../../core/store/db.js';
import type { ChatSettings } from './contract.js';

/**
 * The two ways a docs answer gets its settings (specs/docs-assistant.fr.md, "Surfaces livrées"):
 *  - "l'assistant" (/assistant): configuration defaults overridden by the visitor's session
 *    (forAssistant), one set per browser;
 *  - "le chat" embedded in /docs: the ChatConfig row an admin saved at /admin/chat/params
 *    (forEmbeddedChat), falling back to the configuration defaults until one is saved.
 */

/** French labels of the settings fields: form messages name the field they are about. */
export const SETTINGS_LABELS = {
  model: 'Modèle',
  k: 'Passages récupérés (k)',
  threshold: 'Seuil bas (refus)',
  confident: 'Seuil haut (confiance)',
  temperature: 'Température',
  maxTokens: 'Longueur maximale (jetons)',
  historyTurns: 'Tours d’historique',
} as const;

/** A number field with French messages that name the field (« Seuil bas (refus) : au moins 0. »). */
function numberField(key: keyof typeof SETTINGS_LABELS, min: number, max: number, int: boolean) {
  const label = SETTINGS_LABELS[key];
  const base = z.coerce.number({ error: `${label} : un nombre est attendu.` });
  const n = int ? base.int({ error: `${label} : un nombre entier est attendu.` }) : base;
  return n.min(min, { error: `${label} : au moins ${min}.` }).max(max, { error: `${label} : au plus ${max}.` });
}

const settingsShape = {
  model: z
    .string({ error: `${SETTINGS_LABELS.model} : requis.` })
    .trim()
    .min(1, { error: `${SETTINGS_LABELS.model} : requis.` })
    .max(100, { error: `${SETTINGS_LABELS.model} : 100 caractères au plus.` })
    .regex(/^[A-Za-z0-9._:/@-]+$/, { error: `${SETTINGS_LABELS.model} : lettres, chiffres et . _ : / @ - seulement.` }),
  k: numberField('k', 1, 50, true),
  threshold: numberField('threshold', 0, 1, false),
  confident: numberField('confident', 0, 1, false),
  temperature: numberField('temperature', 0, 1, false),
  maxTokens: numberField('maxTokens', 16, 8192, true),
  historyTurns: numberField('historyTurns', 0, 20, true),
};

const boundsInOrder = (s: { threshold: number; confident?: number | undefined }): boolean => s.confident === undefined || s.confident >= s.threshold;
const BOUNDS_MESSAGE = { error: `${SETTINGS_LABELS.confident} : doit être supérieur ou égal au ${SETTINGS_LABELS.threshold.toLowerCase()}.`, path: ['confident'] };

export const chatSettingsSchema = z.object(settingsShape).refine(boundsInOrder, BOUNDS_MESSAGE);

/** A saved row from before the high bound existed still loads; the bound then comes from the defaults. */
const storedSettingsSchema = z.object({ ...settingsShape, confident: settingsShape.confident.optional() }).refine(boundsInOrder, BOUNDS_MESSAGE);
export type StoredChatSettings = z.infer<typeof storedSettingsSchema>;

/** Partial overrides as stored for a visitor; anything invalid in storage is dropped, not trusted. */
export const chatSettingsOverridesSchema = z.object(settingsShape).partial();

export type ChatSettingsOverrides = z.infer<typeof chatSettingsOverridesSchema>;

/** Keeps the bounds in order whatever was combined (a visitor's low bound over the default high one). */
const ordered = (s: ChatSettings): ChatSettings => ({ ...s, confident: Math.max(s.confident, s.threshold) });

export function forAssistant(defaults: ChatSettings, session: ChatSettingsOverrides | undefined): ChatSettings {
  return ordered({ ...defaults, ...(session ?? {}) });
}

export function forEmbeddedChat(defaults: ChatSettings, stored: StoredChatSettings | undefined): ChatSettings {
  return stored ? ordered({ ...defaults, ...stored, confident: stored.confident ?? defaults.confident }) : defaults;
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
  get(): { settings: StoredChatSettings; updatedAt: string } | undefined {
    const row = this.getStmt.get();
    if (!row) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(row.settings);
    } catch {
      return undefined;
    }
    const parsed = storedSettingsSchema.safeParse(raw);
    return parsed.success ? { settings: parsed.data, updatedAt: row.updated_at } : undefined;
  }

  save(settings: ChatSettings): void {
    this.putStmt.run(JSON.stringify(chatSettingsSchema.parse(settings)));
  }

  reset(): void {
    this.delStmt.run();
  }
}
