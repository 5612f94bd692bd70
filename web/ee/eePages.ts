import { renderPage } from '../layout.js';
import { html } from '../html.js';
import { signinSection, type SigninOptions } from '../t2/t2Pages.js';

/**
 * Server-rendered written-practice pages (docs/corrections.md § Written practice): `/ee` lists the
 * three written tasks with their subjects; `/ee/sujets/:id` shows the instruction, a text area with
 * the word counter and the timer, then the report (web/ee/static/write.js); `/ee/productions/:id`
 * reopens a stored production (web/ee/static/production.js). Reports are drawn by the T2 report
 * renderer (web/t2/static/report.js) and the sign-in is T2's, so both pages read the same.
 */

const STYLES = ['/t2/static/t2.css', '/ee/static/ee.css'];

/** What the pages show of a written task (actors/corrections/eeSubjects.ts holds the three). */
export interface EeTaskView {
  tache: string;
  titre: string;
  demande: string;
  mots: { min: number; max: number };
  minutes: number;
}

/** What the pages show of a practice subject (actors/corrections/eeSubjects.ts). */
export interface EeSubjectView {
  id: string;
  tache: string;
  titre: string;
  consigne: string;
  documents?: ReadonlyArray<{ titre: string; texte: string }>;
}

function limits(task: EeTaskView): string {
  return `${task.mots.min} à ${task.mots.max} mots`;
}

export function eeHomePage(tasks: readonly EeTaskView[], subjects: readonly EeSubjectView[]): string {
  return renderPage({
    title: 'Expression écrite',
    current: '/ee',
    styles: STYLES,
    body: html`<h1>Expression écrite : choisissez une tâche et un sujet</h1>
<p>L’épreuve d’expression écrite du TCF Canada dure 60 minutes pour trois tâches. Entraînez-vous ici tâche par tâche : écrivez votre texte, envoyez-le, et lisez sa correction (note sur 20, niveau NCLC, erreurs relevées dans votre texte et conseils).</p>
<p>Vos productions et leurs rapports restent disponibles dans <a href="/t2/seances">Mes séances</a>.</p>
${tasks.map((t) => html`<section class="ee-task" aria-labelledby="ee-task-${t.tache}">
<h2 id="ee-task-${t.tache}">${t.titre}</h2>
<p>${t.demande}</p>
<p class="hint">Longueur attendue : ${limits(t)}. Temps conseillé : ${t.minutes} minutes.</p>
<ul class="t2-subjects ee-subjects">
${subjects.filter((s) => s.tache === t.tache).map((s) => html`<li><a href="/ee/sujets/${encodeURIComponent(s.id)}">${s.titre}</a></li>
`)}</ul>
</section>
`)}`,
  });
}

export function eeWritePage(subject: EeSubjectView, task: EeTaskView, opts: { signin: SigninOptions }): string {
  return renderPage({
    title: `${task.titre} — ${subject.titre}`,
    current: '/ee',
    scripts: ['/ee/static/write.js'],
    styles: STYLES,
    body: html`<p class="t2-back"><a href="/ee">← Tous les sujets d’expression écrite</a></p>
<h1>${subject.titre}</h1>
${signinSection(opts.signin)}
<section id="ee-subject" aria-labelledby="ee-consigne-title">
<h2 id="ee-consigne-title">${task.titre}</h2>
<p id="ee-consigne" class="ee-consigne">${subject.consigne}</p>
${(subject.documents ?? []).map((d, i) => html`<figure class="ee-document" aria-labelledby="ee-doc-${i + 1}">
<figcaption id="ee-doc-${i + 1}">${d.titre}</figcaption>
<blockquote><p>${d.texte}</p></blockquote>
</figure>
`)}<p id="ee-limits">Longueur attendue : ${limits(task)}. Temps conseillé : ${task.minutes} minutes (l’épreuve donne 60 minutes pour les trois tâches).</p>
</section>
<section id="ee-write" aria-labelledby="ee-write-title">
<h2 id="ee-write-title">Votre texte</h2>
<form id="ee-form" novalidate data-sujet="${subject.id}" data-min="${task.mots.min}" data-max="${task.mots.max}" data-minutes="${task.minutes}">
<p class="ee-meters"><span>Mots : <strong id="ee-count">0</strong> <span class="hint">(attendu : ${limits(task)})</span></span>
<span>Temps restant : <strong id="ee-timer">${task.minutes}:00</strong> <span id="ee-timer-help" class="hint">(le chronomètre démarre à votre première frappe)</span></span></p>
<p id="ee-count-state" class="ee-count-state" data-state="empty">Commencez à écrire.</p>
<p><label for="ee-text">Votre texte pour cette tâche</label>
<textarea id="ee-text" name="texte" rows="14" maxlength="20000" spellcheck="false" autocomplete="off" aria-describedby="ee-limits ee-count-state"></textarea></p>
<p id="ee-announce" class="visually-hidden" role="status" aria-live="polite"></p>
<p id="ee-form-error" class="t2-error-text" tabindex="-1" hidden></p>
<p><button type="submit" id="ee-submit" aria-describedby="ee-submit-help">Envoyer pour correction</button>
<span id="ee-submit-help" class="hint">Connectez-vous d’abord. La correction prend quelques secondes.</span></p>
<p id="ee-progress" role="status"></p>
</form>
</section>
<section id="ee-report" aria-labelledby="ee-report-title" hidden>
<h2 id="ee-report-title" tabindex="-1">Rapport de correction</h2>
<p id="ee-report-link"></p>
<div id="ee-report-body"></div>
<p class="t2-actions"><button type="button" id="ee-print">Imprimer le rapport</button>
<a class="button secondary" href="/ee">Choisir un autre sujet</a></p>
</section>`,
  });
}

export function eeProductionPage(id: string, opts: { signin: SigninOptions }): string {
  return renderPage({
    title: 'Rapport d’expression écrite',
    current: '/ee',
    scripts: ['/ee/static/production.js'],
    styles: STYLES,
    body: html`<p class="t2-back"><a href="/t2/seances">← Mes séances</a> · <a href="/ee">Expression écrite</a></p>
<h1 id="ee-production-title">Rapport d’expression écrite</h1>
${signinSection(opts.signin)}
<section id="ee-production" data-production-id="${id}" aria-labelledby="ee-production-title">
<p id="ee-production-status" role="status">Connectez-vous pour voir ce rapport.</p>
<div id="ee-production-body"></div>
<p class="t2-actions" id="ee-production-actions" hidden><button type="button" id="ee-print">Imprimer le rapport</button></p>
</section>`,
  });
}
