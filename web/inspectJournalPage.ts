import type { IRouter, RequestHandler } from 'express';
import { journalIdSchema } from '../transports/http/inspectJournal.js';
import { sendErrorPage } from './errorPage.js';
import { renderPage, sendPage } from './layout.js';
import { html } from './html.js';

/**
 * `/inspect/journal/:id`: a recorded conversation scrubbed step by step. The page is a shell; its
 * script (web/static/inspect-journal.js) reads `/api/inspect/journal/:id` and the coverage of the
 * conversation's machine, and draws the chart from `/inspect/charts/:machine.svg`.
 */
export function mountInspectJournalPage(app: IRouter, requireAdmin: RequestHandler): void {
  app.get('/inspect/journal/:id', requireAdmin, (req, res) => {
    const id = journalIdSchema.safeParse(req.params.id);
    if (!id.success) {
      sendErrorPage(res, 404, { message: 'Cet identifiant de conversation n’est pas valide : choisissez une conversation enregistrée depuis l’inspecteur.', path: req.path });
      return;
    }
    const body = html`<p><a href="/inspect">← Inspecteur</a></p>
<h1>Conversation enregistrée <code id="journal-id" data-id="${id.data}">${id.data}</code></h1>
<p id="journal-meta" class="lead" aria-live="polite">Chargement du journal…</p>
<div class="journal-layout">
<section class="journal-chart" aria-labelledby="jchart-title">
<h2 id="jchart-title">Statechart à l’étape choisie</h2>
<div class="step-control">
<label for="step">Étape</label>
<input type="range" id="step" name="step" min="0" max="0" value="0" step="1" disabled aria-describedby="step-now">
<output id="step-pos" for="step">0 / 0</output>
</div>
<p id="step-now" class="state-line" role="status" aria-live="polite">—</p>
<p id="step-move" class="state-line">Transition : —</p>
<p class="chart-tools"><button type="button" id="chart-fit" aria-pressed="false">Taille réelle</button></p>
<div id="chart" class="chart-box" tabindex="0" role="region" aria-label="Statechart de la conversation enregistrée (zone défilante)"></div>
</section>
<section class="journal-steps" aria-labelledby="steps-title">
<h2 id="steps-title">Étapes</h2>
<p class="muted">Flèches gauche/droite sur le curseur, ou Entrée sur une étape de la liste.</p>
<ol id="steps" class="step-list"></ol>
<section class="step-detail" aria-labelledby="detail-title">
<h3 id="detail-title">Détail de l’étape</h3>
<div id="step-detail"><p class="muted">Aucune étape choisie.</p></div>
</section>
</section>
</div>
<section class="journal-coverage" aria-labelledby="cov-title">
<h2 id="cov-title">Transitions : trafic enregistré et tests de modèle</h2>
<p id="cov-summary" class="muted">Chargement…</p>
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="cov-title">
<table id="coverage" class="coverage-table">
<caption>Par transition : conversations enregistrées qui l’ont prise, couverture par les tests de modèle (npm run test:model)</caption>
<thead><tr><th scope="col">Transition</th><th scope="col">Prise par (conversations)</th><th scope="col">Testée</th><th scope="col">Signal</th></tr></thead>
<tbody></tbody>
</table>
</div>
</section>`;
    sendPage(res, renderPage({ title: `Conversation enregistrée ${id.data}`, current: '/inspect', body, scripts: ['/static/inspect-journal.js'], styles: ['/static/inspect.css', '/static/inspect-journal.css'], bodyClass: 'inspect-page' }));
  });
}
