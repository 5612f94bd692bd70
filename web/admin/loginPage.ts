import type { Response } from 'express';
import type { AdminLoginView } from '../../core/admin/adminAuth.js';
import { renderPage, sendPage } from '../layout.js';
import { html, type SafeHtml } from '../html.js';

/**
 * The admin login page (/admin/login) and the CSRF field of the admin forms. The session, the
 * throttle and the CSRF checks are core's admin service (core/admin/adminAuth.ts): it hands the
 * token to render, this page only draws it.
 */
export function sendAdminLoginPage(res: Response, view: AdminLoginView): void {
  const body = html`<div class="narrow">
<h1>Connexion administrateur</h1>
${view.error ? html`<p class="form-error" role="alert" id="login-error">${view.error}</p>` : ''}
<form method="post" action="/admin/login">
<input type="hidden" name="_csrf" value="${view.csrf}">
<input type="hidden" name="next" value="${view.next}">
<div class="field">
<label for="password">Mot de passe administrateur</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${view.error ? html` aria-describedby="login-error" aria-invalid="true"` : ''}>
</div>
<div class="actions"><button type="submit">Se connecter</button></div>
</form>
</div>`;
  sendPage(res, renderPage({ title: 'Connexion administrateur', body }), view.status);
}

/** The hidden CSRF input every state-changing admin form sends back (`admin.csrfToken(res)`). */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}
