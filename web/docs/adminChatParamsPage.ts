import type { IRouter, Request, Response } from 'express';
import type { ChatSettings, DocsAssistant } from '../../machines/chatContract.js';
import { chatSettingsSchema, forEmbeddedChat, type SavedChatConfig } from '../../machines/chatSettings.js';
import type { Logger } from '../../core/log.js';
import { renderPage, sendPage } from '../layout.js';
import { html } from '../html.js';
import type { AdminAuth } from '../../core/admin/adminAuth.js';
import { csrfField } from '../admin/loginPage.js';
import { settingsFields, type SettingsFieldErrors } from './views.js';

/**
 * /admin/chat/params: the embedded chat's fixed settings (ChatConfig), behind the admin login.
 * Every POST needs the session's CSRF token; without it nothing changes (403).
 */

/** The saved ChatConfig as the pages read and edit it (actors/docs/chatConfigStore.ts). */
export interface ChatConfigEditor {
  get(): SavedChatConfig | undefined;
  save(settings: ChatSettings): Promise<void>;
  reset(): Promise<void>;
}

export interface AdminPageDeps {
  assistant: DocsAssistant;
  chatConfig: ChatConfigEditor;
  admin: AdminAuth;
  logger: Logger;
  models: () => string[];
}

function render(d: AdminPageDeps, res: Response, v: { status?: string; errors?: SettingsFieldErrors; values?: Record<string, string | number>; httpStatus?: number }): void {
  const defaults = d.assistant.defaults();
  const stored = d.chatConfig.get();
  const current = forEmbeddedChat(defaults, stored?.settings);
  const body = html`<h1>Réglages du chat intégré</h1>
<p>Ces paramètres s’appliquent au chat du visualiseur <a href="/docs">/docs</a>, pour tous les visiteurs. ${stored ? html`Dernière modification : ${stored.updatedAt} (UTC).` : 'Aucun réglage enregistré : les valeurs par défaut de la configuration s’appliquent.'}</p>
<p>Deux seuils encadrent les réponses : sous le <strong>seuil bas</strong>, la question est refusée sans appel au modèle ; à partir du <strong>seuil haut</strong>, la réponse est donnée avec une confiance haute ; entre les deux, le modèle indique d’abord quels passages répondent (sans clé d’API, la réponse est donnée avec une confiance basse et le signale).</p>
<p role="status" class="${v.status ? 'success' : ''}">${v.status ?? ''}</p>
${v.errors ? html`<p class="form-error" role="alert">Réglages non enregistrés : corrigez les champs signalés.</p>` : ''}
<form method="post" action="/admin/chat/params">
${csrfField(d.admin.csrfToken(res))}
<fieldset>
<legend>Paramètres des réponses du chat intégré</legend>
${settingsFields(v.values ?? { ...current }, v.errors ?? {}, 'p', d.models())}
</fieldset>
<div class="actions"><button type="submit">Enregistrer</button></div>
</form>
<form method="post" action="/admin/chat/params/reset" class="actions">
${csrfField(d.admin.csrfToken(res))}
<button type="submit" class="secondary">Revenir aux valeurs de la configuration</button>
</form>
<form method="post" action="/admin/logout" class="actions">
${csrfField(d.admin.csrfToken(res))}
<button type="submit" class="secondary">Se déconnecter</button>
</form>`;
  sendPage(res, renderPage({ title: 'Réglages du chat intégré', current: '/admin/chat/params', body }), v.httpStatus ?? 200);
}

export function mountAdminChatParamsPage(app: IRouter, d: AdminPageDeps): void {
  const { requireAdmin, form, verifyCsrf } = d.admin;

  app.get('/admin/chat/params', requireAdmin, (req: Request, res: Response) => {
    const status = req.query.saved === '1' ? 'Réglages enregistrés.' : req.query.reset === '1' ? 'Valeurs de la configuration rétablies.' : undefined;
    render(d, res, status ? { status } : {});
  });

  app.post('/admin/chat/params', requireAdmin, form, verifyCsrf, async (req: Request, res: Response) => {
    const parsed = chatSettingsSchema.safeParse(req.body);
    if (!parsed.success) {
      const errors: SettingsFieldErrors = {};
      for (const i of parsed.error.issues) errors[String(i.path[0] ?? '')] ??= i.message;
      const values: Record<string, string> = {};
      for (const [k, v] of Object.entries((req.body ?? {}) as Record<string, unknown>)) if (typeof v === 'string' && k !== '_csrf') values[k] = v.slice(0, 200);
      render(d, res, { errors, values, httpStatus: 400 });
      return;
    }
    await d.chatConfig.save(parsed.data);
    d.logger.info({ event: 'chat_config_saved', settings: parsed.data }, 'ChatConfig saved');
    res.redirect(303, '/admin/chat/params?saved=1');
  });

  app.post('/admin/chat/params/reset', requireAdmin, form, verifyCsrf, async (_req: Request, res: Response) => {
    await d.chatConfig.reset();
    d.logger.info({ event: 'chat_config_reset' }, 'ChatConfig reset');
    res.redirect(303, '/admin/chat/params?reset=1');
  });
}
