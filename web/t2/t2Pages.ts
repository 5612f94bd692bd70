import { renderPage } from '../layout.js';
import { html, type SafeHtml } from '../html.js';

/**
 * Server-rendered T2 pages (docs/t2-live.md § The candidate's pages): the subject list, then the preparation
 * page whose "Démarrer le dialogue" turns it into the live page (web/t2/static/live.js), and
 * « Mes séances » (web/t2/static/sessions.js) with each past report. The fact sheet is never sent
 * to the page: the candidate must ask for it. Reports are drawn by one renderer
 * (web/t2/static/report.js) at the end of a live session and in « Mes séances ».
 */

/** What the pages show of a subject (never its fact sheet); actors/t2/subjects.ts stores them. */
export interface SubjectView {
  id: string;
  titre: string;
  consigne: string;
  contexte: string;
}

const TEXT_MODE_NOTICE = 'Mode texte : aucune clé Gemini n’est configurée, l’interlocuteur répond par écrit (fournisseur hors ligne).';
const STYLES = ['/t2/static/t2.css'];

export interface SigninOptions {
  /** Development: the page may mint a short-lived token (POST /api/t2/dev/token). */
  dev: boolean;
  /** A token the host platform handed over with the page request (verified). */
  token?: string;
}

/**
 * Who the candidate is. In production the host platform provides the token (a header on the page
 * request, `?token=` or `#token=`); in development a button mints one. Pasting a token stays
 * possible, folded away, for hosts that hand one over by hand.
 */
export function signinSection(opts: SigninOptions): SafeHtml {
  return html`<section id="t2-signin" class="t2-signin" aria-labelledby="t2-signin-title" data-dev="${opts.dev ? 'true' : 'false'}"${opts.token ? html` data-token="${opts.token}"` : ''}>
<h2 id="t2-signin-title">Connexion</h2>
<p id="t2-signin-status" role="status">Vérification de la connexion…</p>
<div id="t2-signin-forms" hidden>
${opts.dev
    ? html`<form id="t2-dev-form" class="t2-dev-form">
<p>Mode développement : aucun <code>JWT_SECRET</code> n’est configuré. Choisissez une offre pour obtenir un jeton valable deux heures.</p>
<p><label for="t2-dev-plan">Offre</label>
<select id="t2-dev-plan" name="plan"><option value="premium">Premium : dialogue en direct de la tâche 2</option><option value="free">Gratuite : corrections écrites seulement</option></select></p>
<p><label for="t2-dev-sub">Identifiant du candidat</label>
<input id="t2-dev-sub" name="sub" value="dev-candidat" maxlength="64" autocomplete="off" spellcheck="false" aria-describedby="t2-dev-sub-help">
<span id="t2-dev-sub-help" class="hint">Vos séances sont rangées sous cet identifiant.</span></p>
<p><button type="submit" id="t2-dev-signin">Se connecter en mode développement</button></p>
<p id="t2-dev-error" class="t2-error-text" role="alert" hidden></p>
</form>`
    : html`<p>Ouvrez cette page depuis votre espace sur la plateforme qui vous donne accès à palabre : elle vous connecte automatiquement.</p>`}
<details id="t2-token-details">
<summary>J’ai reçu un jeton d’accès</summary>
<form id="t2-token-form">
<p><label for="t2-token">Jeton d’accès</label>
<input id="t2-token" name="token" type="password" autocomplete="off" spellcheck="false">
<button type="submit" id="t2-token-use">Utiliser ce jeton</button></p>
</form>
</details>
</div>
<p><button type="button" id="t2-signout" hidden>Se déconnecter</button></p>
</section>`;
}

export function subjectListPage(subjects: readonly SubjectView[], opts: { textMode: boolean }): string {
  return renderPage({
    title: 'Tâche 2 — sujets',
    current: '/t2/sujets',
    notice: opts.textMode ? TEXT_MODE_NOTICE : undefined,
    body: html`<h1>Expression orale, tâche 2 : choisissez un sujet</h1>
<p>Vous menez un échange pour obtenir des informations. L’interlocuteur attend que vous parliez en premier.</p>
<p>Vos séances passées et leurs rapports sont dans <a href="/t2/seances">Mes séances</a>. Pour l’écrit : <a href="/ee">Expression écrite</a>.</p>
<ul class="t2-subjects">
${subjects.map((s) => html`<li><a href="/t2/sujets/${encodeURIComponent(s.id)}">${s.titre}</a><p>${s.consigne}</p></li>
`)}</ul>`,
  });
}

export function preparationPage(subject: SubjectView, opts: { textMode: boolean; examMs: number; graceMs?: number; signin: SigninOptions }): string {
  const minutes = Math.floor(opts.examMs / 60000);
  const seconds = Math.round((opts.examMs % 60000) / 1000);
  return renderPage({
    title: `Tâche 2 — ${subject.titre}`,
    current: '/t2/sujets',
    scripts: ['/t2/static/live.js'],
    styles: STYLES,
    notice: opts.textMode ? TEXT_MODE_NOTICE : undefined,
    body: html`<h1>${subject.titre}</h1>
<section id="t2-interrupted" class="t2-callout" aria-labelledby="t2-interrupted-title" hidden>
<h2 id="t2-interrupted-title">Votre séance précédente a été interrompue</h2>
<p id="t2-interrupted-text"></p>
<p><a href="/t2/seances">Ouvrir Mes séances</a></p>
</section>
${signinSection(opts.signin)}
<section aria-labelledby="t2-consigne-title" id="t2-preparation">
<h2 id="t2-consigne-title">Consigne</h2>
<p id="t2-consigne">${subject.consigne}</p>
<p>${subject.contexte}</p>
<p>Durée : ${minutes} min ${seconds ? `${seconds} s` : ''}. Un avertissement est donné 30 secondes avant la fin.</p>
<form id="t2-start" data-sujet="${subject.id}" data-titre="${subject.titre}" data-mode="${opts.textMode ? 'text' : 'audio'}" data-exam-ms="${opts.examMs}" data-grace-ms="${opts.graceMs ?? 0}">
<p><button type="submit" id="t2-start-button" aria-describedby="t2-start-help">Démarrer le dialogue</button>
<span id="t2-start-help" class="hint">Connectez-vous d’abord.</span></p>
</form>
</section>
<section aria-labelledby="t2-live-title" id="t2-live" hidden>
<h2 id="t2-live-title">Dialogue</h2>
<p>État : <strong id="t2-state" role="status" aria-live="polite">connexion…</strong></p>
<p id="t2-timer-line">Temps restant : <span id="t2-timer" aria-live="off">–</span></p>
<p id="t2-warning" role="alert" hidden></p>
<div id="t2-link" role="status" aria-live="polite"><p id="t2-reconnecting" class="t2-callout" hidden></p></div>
<form id="t2-text-form" hidden>
<p><label for="t2-text">Votre question</label>
<input id="t2-text" name="text" type="text" maxlength="2000" autocomplete="off">
<button type="submit">Envoyer</button></p>
</form>
<p><button type="button" id="t2-end" class="t2-danger" aria-haspopup="dialog">Terminer</button></p>
<div id="t2-live-transcript">
<h3>Transcription</h3>
<ol id="t2-transcript" class="t2-transcript" aria-live="polite"></ol>
</div>
<dialog id="t2-end-dialog" class="t2-dialog" aria-labelledby="t2-end-dialog-title" aria-describedby="t2-end-dialog-text">
<h3 id="t2-end-dialog-title">Terminer la séance ?</h3>
<p id="t2-end-dialog-text">Le dialogue s’arrête et ce que vous avez dit est évalué. Vous ne pourrez pas le reprendre.</p>
<p class="t2-actions"><button type="button" id="t2-end-confirm" class="t2-danger-solid">Terminer et voir le rapport</button>
<button type="button" id="t2-end-cancel" class="secondary" autofocus>Continuer le dialogue</button></p>
</dialog>
</section>
<section id="t2-elsewhere" class="t2-callout" aria-labelledby="t2-elsewhere-title" hidden>
<h2 id="t2-elsewhere-title">Une séance est déjà en cours</h2>
<p id="t2-elsewhere-text">Vous avez une séance en cours dans un autre onglet ou une autre fenêtre. Une seule séance à la fois : si vous commencez ici, l’autre séance est terminée et évaluée (son rapport sera dans « Mes séances »).</p>
<p class="t2-actions"><button type="button" id="t2-takeover" class="t2-danger-solid">Terminer l’autre séance et commencer ici</button>
<button type="button" id="t2-takeover-cancel" class="secondary">Ne rien faire</button></p>
</section>
<section aria-labelledby="t2-report-title" id="t2-report" hidden>
<h2 id="t2-report-title">Rapport</h2>
<p id="t2-ended-note" class="t2-callout" hidden></p>
<div id="t2-report-body"></div>
<p class="t2-actions"><button type="button" id="t2-download-transcript">Télécharger la transcription</button>
<button type="button" id="t2-download" hidden>Télécharger l’audio</button>
<button type="button" id="t2-print">Imprimer le rapport</button></p>
<p id="t2-no-audio" class="hint" hidden>Séance en mode texte : il n’y a pas d’enregistrement audio à télécharger.</p>
<p>Ce rapport reste disponible dans <a href="/t2/seances">Mes séances</a>.</p>
</section>
<section aria-labelledby="t2-error-title" id="t2-error" hidden>
<h2 id="t2-error-title">Erreur</h2>
<p id="t2-error-message" role="alert"></p>
<div id="t2-error-help"></div>
<p><button type="button" id="t2-retry">Réessayer</button> <a href="/t2/sujets">Retour à la liste des sujets</a></p>
</section>`,
  });
}

export function sessionListPage(opts: { signin: SigninOptions }): string {
  return renderPage({
    title: 'Mes séances',
    current: '/t2/seances',
    scripts: ['/t2/static/sessions.js'],
    styles: STYLES,
    body: html`<h1>Mes séances</h1>
${signinSection(opts.signin)}
<section id="t2-sessions" aria-labelledby="t2-sessions-title">
<h2 id="t2-sessions-title">Expression orale : séances de la tâche 2</h2>
<p id="t2-sessions-status" role="status">Connectez-vous pour voir vos séances.</p>
<ul id="t2-sessions-list" class="t2-session-list"></ul>
</section>
<section id="ee-productions" aria-labelledby="ee-productions-title">
<h2 id="ee-productions-title">Expression écrite : productions corrigées</h2>
<p id="ee-productions-status" role="status">Connectez-vous pour voir vos productions.</p>
<ul id="ee-productions-list" class="t2-session-list"></ul>
<p><a href="/ee">Écrire une nouvelle production</a></p>
</section>`,
  });
}

export function sessionReportPage(id: string, opts: { signin: SigninOptions }): string {
  return renderPage({
    title: 'Rapport de séance',
    current: '/t2/seances',
    scripts: ['/t2/static/sessions.js'],
    styles: STYLES,
    body: html`<p class="t2-back"><a href="/t2/seances">← Mes séances</a></p>
<h1 id="t2-session-title">Rapport de séance</h1>
${signinSection(opts.signin)}
<section id="t2-session" data-session-id="${id}" aria-labelledby="t2-session-title">
<p id="t2-session-status" role="status">Connectez-vous pour voir ce rapport.</p>
<div id="t2-session-body"></div>
<p class="t2-actions" id="t2-session-actions" hidden><button type="button" id="t2-session-transcript">Télécharger la transcription</button>
<button type="button" id="t2-session-audio" hidden>Télécharger l’audio</button>
<button type="button" id="t2-print">Imprimer le rapport</button></p>
<p id="t2-session-no-audio" class="hint" hidden></p>
</section>`,
  });
}
