import { describe, expect, it } from 'vitest';
import { ChatConfigStore } from '../../actors/docs/chatConfigStore.js';
import { chatSettingsSchema, forAssistant, forEmbeddedChat } from '../../machines/chatSettings.js';
import type { ChatSettings } from '../../machines/chatContract.js';
import { openStore } from '../../core/store/db.js';
import { sqliteAppStore } from '../../core/store/appStore.js';
import { PORTABLE_MIGRATIONS } from '../support/migrations.js';

const defaults: ChatSettings = { model: 'm', k: 5, threshold: 0.2, confident: 0.5, temperature: 0.2, maxTokens: 800, historyTurns: 4 };

describe('chat settings: the two bounds', () => {
  it('a ChatConfig saved before the high bound existed still loads, with the default high bound', async () => {
    const db = openStore({ path: ':memory:' });
    const port = sqliteAppStore(db, PORTABLE_MIGRATIONS);
    await new ChatConfigStore(port).ready;
    db.prepare("INSERT INTO chat_config (id, settings, updated_at) VALUES (1, ?, '2026-01-01 00:00:00')").run(JSON.stringify({ model: 'old', k: 3, threshold: 0.3, temperature: 0, maxTokens: 100, historyTurns: 0 }));
    const store = new ChatConfigStore(port);
    await store.ready;
    const stored = store.get();
    expect(stored?.settings.model).toBe('old');
    expect(forEmbeddedChat(defaults, stored?.settings)).toEqual({ model: 'old', k: 3, threshold: 0.3, confident: 0.5, temperature: 0, maxTokens: 100, historyTurns: 0 });
    db.close();
  });

  it('the bounds stay in order: a form with the high bound under the low one is refused in French; merged settings are ordered', () => {
    const bad = chatSettingsSchema.safeParse({ ...defaults, threshold: '0.6', confident: '0.4' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({ path: ['confident'], message: 'Seuil haut (confiance) : doit être supérieur ou égal au seuil bas (refus).' });
    expect(forAssistant(defaults, { threshold: 0.7 })).toMatchObject({ threshold: 0.7, confident: 0.7 });
  });

  it('messages name the field, in French', () => {
    const r = chatSettingsSchema.safeParse({ ...defaults, k: 'abc', temperature: '3', model: '' });
    expect(r.success).toBe(false);
    // The first message of each field (what the form shows).
    const messages = Object.fromEntries([...r.error!.issues].reverse().map((i) => [String(i.path[0]), i.message]));
    expect(messages).toMatchObject({ k: 'Passages récupérés (k) : un nombre est attendu.', temperature: 'Température : au plus 1.', model: 'Modèle : requis.' });
  });
});
