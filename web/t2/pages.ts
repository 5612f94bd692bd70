import { html, renderPage } from '../layout.js';
import type { Subject } from '../../actors/t2/subjects.js';

/**
 * Server-rendered T2 pages (spec §6 steps 1–2 and 16–17): the subject list, then the preparation
 * page whose "Démarrer le dialogue" turns it into the live page (web/t2/live.js). The fact sheet
 * is never sent to the page: the candidate must ask for it.
 */

export function subjectListPage(subjects: Subject[], opts: { textMode: boolean }): string {
  return renderPage({
    title: 'Tâche 2 — sujets',
    current: '/t2/sujets',
    notice: opts.textMode ? 'Mode texte : aucune clé Gemini n’est configurée, l’interlocuteur répond par écrit (fournisseur hors ligne).' : undefined,
    body: html`<h1>Expression orale, tâche 2 : choisissez un sujet</h1>
<p>Vous menez un échange pour obtenir des informations. L’interlocuteur attend que vous parliez en premier.</p>
<ul class="t2-subjects">
${subjects.map((s) => html`<li><a href="/t2/sujets/${encodeURIComponent(s.id)}">${s.titre}</a><p>${s.consigne}</p></li>
`)}</ul>`,
  });
}

export function preparationPage(subject: Subject, opts: { textMode: boolean; examMs: number }): string {
  const minutes = Math.floor(opts.examMs / 60000);
  const seconds = Math.round((opts.examMs % 60000) / 1000);
  return renderPage({
    title: `Tâche 2 — ${subject.titre}`,
    current: '/t2/sujets',
    scripts: ['/t2/static/live.js'],
    notice: opts.textMode ? 'Mode texte : aucune clé Gemini n’est configurée, l’interlocuteur répond par écrit (fournisseur hors ligne).' : undefined,
    body: html`<h1>${subject.titre}</h1>
<section aria-labelledby="t2-consigne-title" id="t2-preparation">
<h2 id="t2-consigne-title">Consigne</h2>
<p id="t2-consigne">${subject.consigne}</p>
<p>${subject.contexte}</p>
<p>Durée : ${minutes} min ${seconds ? `${seconds} s` : ''}. Un avertissement est donné 30 secondes avant la fin.</p>
<form id="t2-start" data-sujet="${subject.id}" data-mode="${opts.textMode ? 'text' : 'audio'}" data-exam-ms="${opts.examMs}">
<p><label for="t2-token">Jeton d’accès (JWT, offre Premium)</label>
<input id="t2-token" name="token" type="password" autocomplete="off" required aria-describedby="t2-token-help">
<span id="t2-token-help">Obtenu avec <code>palabre token --plan premium</code> en développement.</span></p>
<p><button type="submit" id="t2-start-button">Démarrer le dialogue</button></p>
</form>
</section>
<section aria-labelledby="t2-live-title" id="t2-live" hidden>
<h2 id="t2-live-title">Dialogue</h2>
<p>État : <strong id="t2-state" role="status" aria-live="polite">connexion…</strong></p>
<p>Temps restant : <span id="t2-timer" aria-live="off">–</span></p>
<p id="t2-warning" role="alert" hidden></p>
<form id="t2-text-form" hidden>
<p><label for="t2-text">Votre question</label>
<input id="t2-text" name="text" type="text" maxlength="2000" autocomplete="off">
<button type="submit">Envoyer</button></p>
</form>
<p><button type="button" id="t2-end">Terminer</button></p>
<h3>Transcription</h3>
<ol id="t2-transcript" aria-live="polite"></ol>
</section>
<section aria-labelledby="t2-report-title" id="t2-report" hidden>
<h2 id="t2-report-title">Rapport</h2>
<div id="t2-report-body"></div>
<p><button type="button" id="t2-download" hidden>Télécharger l’audio</button></p>
</section>
<section aria-labelledby="t2-error-title" id="t2-error" hidden>
<h2 id="t2-error-title">Erreur</h2>
<p id="t2-error-message" role="alert"></p>
<p><button type="button" id="t2-retry">Réessayer</button> <a href="/t2/sujets">Retour à la liste des sujets</a></p>
</section>`,
  });
}
