import express, { type IRouter, type Request, type Response } from 'express';
import type { DocsAssistant } from '../../machines/chatContract.js';
import { chatSettingsSchema, forAssistant } from '../../machines/chatSettings.js';
import type { Logger } from '../../core/log.js';
import { renderPage, sendPage } from '../layout.js';
import { html } from '../html.js';
import type { DocsVisitorSession, DocsVisitorSessions } from './visitor.js';
import { answerInThread, askBodySchema, askMode } from './askFlow.js';
import { chatBlock, providerNotice, settingsFields, type SettingsFieldErrors } from './views.js';

/**
 * "L'assistant" (/assistant): the visitor's own settings, kept in their server-side session
 * (forAssistant = configuration defaults + session overrides), the conversation and the question
 * form. Everything works as plain form posts; web/static/chat.js adds fetch + streaming.
 */

export interface PageDeps {
  assistant: DocsAssistant;
  sessions: DocsVisitorSessions;
  logger: Logger;
  /** Model names suggested in the model field. */
  models: () => string[];
}

interface AssistantView {
  session: DocsVisitorSession | undefined;
  status?: string;
  settingsErrors?: SettingsFieldErrors;
  settingsValues?: Record<string, string | number>;
  askError?: string;
  question?: string;
  httpStatus?: number;
}

const PREFIX = 'a';

function render(d: PageDeps, res: Response, v: AssistantView): void {
  const defaults = d.assistant.defaults();
  const settings = forAssistant(defaults, v.session?.settings);
  const thread = v.session?.threads.assistant ?? [];
  const values = v.settingsValues ?? { ...settings };
  const body = html`<h1>Assistant documentaire</h1>
<p>Posez une question sur la documentation : la réponse s’appuie uniquement sur les passages retrouvés et cite ses sources. Hors documentation, l’assistant le dit.</p>
<div class="chat with-settings">
<section aria-labelledby="conv_title">
<h2 id="conv_title">Conversation</h2>
${chatBlock({ action: '/assistant/ask', clearAction: '/assistant/clear', thread, prefix: PREFIX, headingLevel: 3, ...(v.askError ? { error: v.askError } : {}), ...(v.question ? { question: v.question } : {}) })}
</section>
<section class="settings-panel" aria-labelledby="settings_title">
<h2 id="settings_title">Réglages</h2>
<p role="status" class="${v.status ? 'success' : ''}">${v.status ?? ''}</p>
${v.settingsErrors ? html`<p class="form-error" role="alert">Réglages non enregistrés : corrigez les champs signalés.</p>` : ''}
<form method="post" action="/assistant/settings">
<fieldset>
<legend>Réglages de votre session</legend>
${settingsFields(values, v.settingsErrors ?? {}, 's', d.models())}
</fieldset>
<div class="actions"><button type="submit">Enregistrer les réglages</button></div>
</form>
<form method="post" action="/assistant/settings/reset" class="actions">
<button type="submit" class="secondary">Rétablir les réglages par défaut</button>
</form>
<p class="hint">Par défaut : modèle ${defaults.model}, k = ${defaults.k}, seuils ${defaults.threshold} (refus) et ${defaults.confident} (confiance haute), température ${defaults.temperature}, ${defaults.maxTokens} jetons, historique ${defaults.historyTurns} tours. Ces réglages ne valent que pour ce navigateur.</p>
</section>
</div>`;
  const notice = providerNotice(d.assistant.providerName());
  sendPage(res, renderPage({ title: 'Assistant documentaire', current: '/assistant', body, scripts: ['/static/chat.js'], ...(notice ? { notice } : {}) }), v.httpStatus ?? 200);
}

function fieldErrors(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): SettingsFieldErrors {
  const out: SettingsFieldErrors = {};
  for (const i of issues) {
    const key = String(i.path[0] ?? '');
    out[key] ??= i.message;
  }
  return out;
}

export function mountAssistantPage(app: IRouter, d: PageDeps): void {
  const form = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 50 });

  app.get('/assistant', async (req: Request, res: Response) => {
    const status = req.query.saved === '1' ? 'Réglages enregistrés.' : req.query.reset === '1' ? 'Réglages par défaut rétablis.' : undefined;
    render(d, res, { session: await d.sessions.load(req), ...(status ? { status } : {}) });
  });

  app.post('/assistant/ask', form, async (req: Request, res: Response) => {
    const mode = askMode(req);
    const parsed = askBodySchema.safeParse(req.body);
    const session = await d.sessions.ensure(req, res);
    if (!parsed.success) {
      const message = parsed.error.issues[0]?.message ?? 'Question invalide.';
      if (mode !== 'page') {
        res.status(400).json({ error: message });
        return;
      }
      render(d, res, { session, askError: message, httpStatus: 400 });
      return;
    }
    const settings = forAssistant(d.assistant.defaults(), session.settings);
    await answerInThread({
      req, res, mode, logger: d.logger, assistant: d.assistant, settings,
      question: parsed.data.question,
      sessions: d.sessions, session, thread: 'assistant',
      prefix: PREFIX,
      headingLevel: 3,
    });
    if (mode === 'page') render(d, res, { session });
  });

  app.post('/assistant/settings', form, async (req: Request, res: Response) => {
    const session = await d.sessions.ensure(req, res);
    const parsed = chatSettingsSchema.safeParse(req.body);
    if (!parsed.success) {
      const raw = (req.body ?? {}) as Record<string, unknown>;
      const values: Record<string, string> = {};
      for (const [k, v] of Object.entries(raw)) if (typeof v === 'string') values[k] = v.slice(0, 200);
      render(d, res, { session, settingsErrors: fieldErrors(parsed.error.issues), settingsValues: values, httpStatus: 400 });
      return;
    }
    await d.sessions.saveSettings(session, parsed.data);
    res.redirect(303, '/assistant?saved=1');
  });

  app.post('/assistant/settings/reset', async (req: Request, res: Response) => {
    const session = await d.sessions.load(req);
    if (session) await d.sessions.resetSettings(session);
    res.redirect(303, '/assistant?reset=1');
  });

  app.post('/assistant/clear', async (req: Request, res: Response) => {
    const session = await d.sessions.load(req);
    if (session) await d.sessions.clearThread(session, 'assistant');
    res.redirect(303, '/assistant');
  });
}
