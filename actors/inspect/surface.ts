import express from 'express';
import type { Surface, RunningSurface } from '../../core/surfaceContract.js';
import { loadMachine, machineRegistry } from '../../core/machineRegistry.js';
import { upgradeChannel } from '../../core/http/upgrades.js';
import { chartOf } from '../statecharts/chart.js';
import { InspectorHub } from '../statecharts/inspectorHub.js';
import { addNavLink, mountStatic, renderPage, sendPage } from '../../web/layout.js';
import { html } from '../../web/html.js';
import { attachInspectSocket, INSPECT_WS_PATH } from '../../transports/ws/inspectSocket.js';
import { JournalStore } from '../../core/journal/store.js';
import { mountInspectJournal } from '../../transports/http/inspectJournal.js';
import { mountInspectJournalPage } from '../../web/inspectJournalPage.js';
import { inspectConfig, type InspectConfig } from './inspectConfig.js';

/**
 * `/inspect`: every live actor of the process with its statechart drawn from the machine
 * definition (offline: ELK layout, SVG), the current state highlighted and the event log
 * streaming over `/inspect/ws`. Admin only. `INSPECT=stately` also attaches Stately's inspector.
 */
export const inspectSurface: Surface<InspectConfig> = {
  name: 'inspect',
  config: inspectConfig,
  async start(ctx): Promise<RunningSurface> {
    const hub = new InspectorHub(ctx.runtime, Date.now, ctx.config.INSPECT_RETAIN_S * 1000);
    // @statelyai/inspect (and its WebSocket client) is loaded only when asked for.
    const stately = ctx.config.INSPECT === 'stately' ? (await import('../statecharts/stately.js')).attachStatelyInspector(ctx.runtime, ctx.config.INSPECT_STATELY_URL, ctx.logger) : undefined;
    const app = express.Router();
    const machines = ctx.machines ?? machineRegistry([]);
    mountStatic(app);
    const { admin } = ctx;
    if (admin.enabled) addNavLink({ href: '/inspect', label: 'Inspecteur', order: 95 });

    const svgCache = new Map<string, string>();
    app.get('/inspect/charts/:name', admin.requireAdmin, async (req, res) => {
      const name = String(req.params.name).replace(/\.svg$/, '');
      if (!Object.hasOwn(machines, name)) {
        res.status(404).type('text/plain').send(`No machine named ${name}.\n`);
        return;
      }
      let svg = svgCache.get(name);
      if (!svg) {
        const machine = await loadMachine(machines, name);
        // elkjs is large: load it on the first chart request, not at start.
        const { chartToSvg } = await import('../statecharts/svg.js');
        svg = await chartToSvg(chartOf(name, machine!), { embedStyle: false, title: `Statechart ${name}` });
        svgCache.set(name, svg);
      }
      res.type('image/svg+xml').set('Cache-Control', 'no-store').send(svg);
    });

    // Recorded conversations (the journal), scrubbed step by step: /inspect/journal/:id and /api/inspect/journal.
    mountInspectJournal(app, { journal: new JournalStore(ctx.store), machines, adminEnabled: admin.enabled, isAdmin: async (req) => Boolean(await admin.sessionOf(req)) });
    mountInspectJournalPage(app, admin.requireAdmin);

    app.get('/inspect/api/conversations', admin.requireAdmin, (_req, res) => {
      res.json({ conversations: hub.conversations() });
    });

    app.get('/inspect', admin.requireAdmin, (_req, res) => {
      const body = html`<h1>Inspecteur de statecharts</h1>
<p class="lead">Chaque conversation du processus, son statechart et ses événements en direct. Une conversation terminée reste listée ${Math.round(ctx.config.INSPECT_RETAIN_S / 60) >= 1 ? `${Math.round(ctx.config.INSPECT_RETAIN_S / 60)} min` : `${ctx.config.INSPECT_RETAIN_S} s`}, grisée, avec son état final et son journal. Les clés, jetons et flux audio sont retirés avant de quitter l'acteur.</p>
<div class="inspect-layout">
<section class="inspect-actors" aria-labelledby="actors-title">
<h2 id="actors-title">Conversations</h2>
<p id="actors-empty" class="muted">Aucune conversation pour l’instant.</p>
<ul id="actors" class="actor-list"></ul>
<h3 id="recorded-title">Enregistrées (journal)</h3>
<p id="recorded-empty" class="muted">Chargement du journal…</p>
<ul id="recorded" class="recorded-list" aria-labelledby="recorded-title"></ul>
</section>
<section class="inspect-chart" aria-labelledby="chart-title">
<h2 id="chart-title">Statechart</h2>
<p id="chart-state" class="state-line" role="status" aria-live="polite">Sélectionnez une conversation.</p>
<p id="chart-last" class="state-line">Dernière transition : aucune pour l’instant.</p>
<p id="chart-desc" class="desc-line">Ce que fait l’état : —</p>
<p id="chart-hover" class="desc-line muted" aria-live="polite">Survolez un état, ou parcourez-les au clavier (Tab), pour lire sa description.</p>
<p class="chart-tools">
<button type="button" id="zoom-fit">Ajuster à la vue</button>
<button type="button" id="zoom-out" aria-label="Réduire le statechart">−</button>
<button type="button" id="zoom-reset">Taille réelle</button>
<button type="button" id="zoom-in" aria-label="Agrandir le statechart">+</button>
<span id="zoom-level" class="muted" aria-live="polite">100 %</span>
<span class="muted">Glissez pour déplacer, Ctrl + molette pour zoomer, flèches au clavier (F : ajuster).</span>
</p>
<div id="chart" class="chart-box" tabindex="0" role="region" aria-label="Statechart de la conversation sélectionnée (zone défilante)"></div>
<details id="context-box" class="context-box" open>
<summary>Contexte</summary>
<div id="context" class="context-tree"><p class="muted">Aucune conversation sélectionnée.</p></div>
</details>
</section>
<section class="inspect-log" aria-labelledby="log-title">
<h2 id="log-title">Journal des événements</h2>
<div class="log-controls">
<button type="button" id="pause" aria-pressed="false">Pause</button>
<button type="button" id="clear">Effacer</button>
<label for="scope">Conversations</label>
<select id="scope" name="scope"><option value="all">Toutes</option><option value="selected">La sélectionnée</option></select>
<label for="machine">Machine</label>
<select id="machine" name="machine"><option value="">Toutes</option></select>
<label for="filter">Type d'événement</label>
<input type="text" id="filter" name="filter" autocomplete="off" spellcheck="false">
</div>
<p id="connection" class="muted" role="status">Connexion…</p>
<details class="log-legend" id="log-legend" open>
<summary>Légende</summary>
<ul>
<li><span class="ev-type">nom.de.l.événement</span> : un événement traité par une conversation, une ligne par événement (l’événement et l’état qui en résulte).</li>
<li><span class="ev-state">→ état</span> : l’état atteint après l’événement ; <span class="muted">« état inchangé »</span> : l’événement n’a changé aucun état.</li>
<li><span class="muted">(nom)</span> : l’événement est traité par un acteur invoqué par la conversation (l’interlocuteur, un appel au modèle…).</li>
<li><span class="ev-type">+ acteur démarré</span> : un acteur a démarré. Sur le statechart, l’état courant est surligné en jaune, la dernière transition en orange.</li>
</ul>
</details>
<ol id="log" class="event-log"></ol>
</section>
</div>`;
      sendPage(res, renderPage({ title: 'Inspecteur', current: '/inspect', body, scripts: ['/static/inspect.js', '/static/inspect-recorded.js'], styles: ['/static/inspect.css', '/static/inspect-journal.css'], bodyClass: 'inspect-page' }));
    });

    const channel = upgradeChannel();
    const socket = attachInspectSocket({ server: channel.source, hub, logger: ctx.logger, isAdmin: async (req) => Boolean(await admin.sessionOf(req)) });
    return {
      routes: app,
      sockets: { [INSPECT_WS_PATH]: channel.handler },
      urls: admin.enabled ? { inspector: '/inspect' } : {},
      health: () => ({ inspector: admin.enabled ? 'enabled' : 'disabled (set ADMIN_PASSWORD)', stately: Boolean(stately) }),
      async stop() {
        await socket.close();
        stately?.stop();
        hub.close();
      },
    };
  },
};
