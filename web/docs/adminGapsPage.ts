import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import type { AdminAuth } from '../../core/admin/adminAuth.js';
import { csrfField } from '../admin/loginPage.js';
import { renderPage, sendPage } from '../layout.js';
import { html } from '../html.js';

/**
 * /admin/docs/gaps: the questions the docs assistant refused or answered with confidence "low" over
 * the last days, grouped by what they asked, so that the people who write the docs see what is
 * missing. Behind the admin login; `?days=N` (1–365, default 7), `?format=json` for scripts.
 */

/** A sentence the claim check removed from an answer, as the page lists it. */
interface DroppedClaimRow {
  question: string;
  sentence: string;
  at: string;
}

/** A group of questions on the same words, as the page lists it. */
interface GapGroupRow {
  question: string;
  count: number;
  refused: number;
  low: number;
  /** ISO time of the latest question of the group. */
  lastAsked: string;
}

/** The questions the documentation did not cover, as the page reads them (actors/docs/gapStore.ts keeps them). */
export interface GapsReport {
  groups(days: number): Promise<GapGroupRow[]>;
  dropped(days: number): Promise<DroppedClaimRow[]>;
}

export interface AdminGapsDeps {
  gaps: GapsReport;
  admin: AdminAuth;
}

const querySchema = z.object({
  days: z.coerce.number({ error: 'days : un nombre de jours est attendu.' }).int({ error: 'days : un nombre entier est attendu.' }).min(1, { error: 'days : au moins 1.' }).max(365, { error: 'days : au plus 365.' }).default(7),
  format: z.enum(['html', 'json']).default('html'),
});

export function mountAdminGapsPage(app: IRouter, d: AdminGapsDeps): void {
  app.get('/admin/docs/gaps', d.admin.requireAdmin, async (req: Request, res: Response) => {
    const q = querySchema.safeParse(req.query);
    if (!q.success) {
      res.status(400).json({ error: q.error.issues.map((i) => i.message).join(' ') });
      return;
    }
    const groups = await d.gaps.groups(q.data.days);
    const dropped = await d.gaps.dropped(q.data.days);
    if (q.data.format === 'json') {
      res.json({ days: q.data.days, groups, dropped });
      return;
    }
    const rows = groups.map(
      (g) => html`<tr><td>${g.question}</td><td>${g.count}</td><td>${g.refused}</td><td>${g.low}</td><td><time datetime="${g.lastAsked}">${g.lastAsked.slice(0, 16).replace('T', ' ')}</time></td></tr>`,
    );
    const body = html`<h1>Questions sans réponse</h1>
<p>Les questions posées à l’assistant ces ${q.data.days} derniers jours que la documentation n’a pas couvertes : refusées (« Cette information n’est pas dans la documentation ») ou répondues avec une confiance basse. Les questions qui portent sur les mêmes mots sont regroupées ; la plus récente est affichée.</p>
<form method="get" action="/admin/docs/gaps" class="actions">
<label for="g_days">Période (jours)</label>
<input id="g_days" name="days" type="number" min="1" max="365" value="${q.data.days}">
<button type="submit">Afficher</button>
</form>
${groups.length === 0
  ? html`<p role="status">Aucune question sans réponse sur la période.</p>`
  : html`<table>
<caption>${groups.length} sujet(s), les plus demandés d’abord</caption>
<thead><tr><th scope="col">Question (la plus récente du groupe)</th><th scope="col">Fois</th><th scope="col">Refusées</th><th scope="col">Confiance basse</th><th scope="col">Dernière fois (UTC)</th></tr></thead>
<tbody>${rows}</tbody>
</table>`}
<h2>Phrases retirées des réponses</h2>
<p>Avec un fournisseur de modèle, chaque phrase d’une réponse est vérifiée contre le passage qu’elle cite ; celles que leur source ne soutient pas sont retirées avant l’affichage et listées ici.</p>
${dropped.length === 0
  ? html`<p>Aucune phrase retirée sur la période.</p>`
  : html`<table>
<caption>${dropped.length} phrase(s) retirée(s), les plus récentes d’abord</caption>
<thead><tr><th scope="col">Question</th><th scope="col">Phrase retirée</th><th scope="col">Quand (UTC)</th></tr></thead>
<tbody>${dropped.map((x) => html`<tr><td>${x.question}</td><td>${x.sentence}</td><td><time datetime="${x.at}">${x.at.slice(0, 16).replace('T', ' ')}</time></td></tr>`)}</tbody>
</table>`}
<form method="post" action="/admin/logout" class="actions">
${csrfField(d.admin.csrfToken(res))}
<button type="submit" class="secondary">Se déconnecter</button>
</form>`;
    sendPage(res, renderPage({ title: 'Questions sans réponse', current: '/admin/docs/gaps', body }));
  });
}
