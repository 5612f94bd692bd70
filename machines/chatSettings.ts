import { z } from 'zod';
import type { ChatSettings } from './chatContract.js';

/**
 * The two ways a docs answer gets its settings (docs/docs-assistant.md#where-an-answers-settings-come-from):
 *  - "l'assistant" (/assistant): configuration defaults overridden by the visitor's session
 *    (forAssistant), one set per browser;
 *  - "le chat" embedded in /docs: the ChatConfig row an admin saved at /admin/chat/params
 *    (forEmbeddedChat), falling back to the configuration defaults until one is saved.
 *
 * Pure: the chat chart's settings, validated alike by the admin form, the visitor's session and
 * the stored row.
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
export const storedSettingsSchema = z.object({ ...settingsShape, confident: settingsShape.confident.optional() }).refine(boundsInOrder, BOUNDS_MESSAGE);
export type StoredChatSettings = z.infer<typeof storedSettingsSchema>;

/** The ChatConfig an admin saved (actors/docs/chatConfigStore.ts keeps it). */
export interface SavedChatConfig {
  settings: StoredChatSettings;
  updatedAt: string;
}

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
