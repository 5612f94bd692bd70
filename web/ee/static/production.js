// /ee/productions/:id: a stored written production reopened by its owner
// (GET /api/ee/productions/:id with the candidate's token; another candidate's answers 404), its
// instruction, then the report drawn by the shared renderer (report.js) with the text.
import { renderReport, score20 } from '/t2/static/report.js';
import { setupSignin } from '/t2/static/signin.js';

const $ = (id) => document.getElementById(id);
const TASKS = { EE_T1: 'Tâche 1', EE_T2: 'Tâche 2', EE_T3: 'Tâche 3' };

const when = (iso) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString('fr-FR', { dateStyle: 'long', timeStyle: 'short' });
};

async function show(id, token) {
  const status = $('ee-production-status');
  const body = $('ee-production-body');
  body.replaceChildren();
  $('ee-production-actions').hidden = true;
  if (!token) {
    status.textContent = 'Connectez-vous pour voir ce rapport.';
    return;
  }
  status.textContent = 'Chargement…';
  const res = await fetch(`/api/ee/productions/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${token}` } }).catch(() => null);
  const p = res && res.headers.get('content-type')?.includes('json') ? await res.json().catch(() => ({})) : {};
  if (!res || !res.ok) {
    if (res && res.status === 401) signin.clear();
    status.textContent = !res ? 'Le serveur est injoignable : vérifiez votre connexion, puis rechargez la page.' : p.message || `Le serveur a répondu ${res.status}.`;
    return;
  }
  const title = `${TASKS[p.tache] || p.tache} — ${p.sujet.titre || 'sujet libre'}`;
  $('ee-production-title').textContent = `Rapport — ${title}`;
  document.title = `Rapport — ${title} — palabre`;
  status.textContent = `Production du ${when(p.createdAt)}${typeof p.scoreGlobal === 'number' ? `, note ${score20(p.scoreGlobal)}` : ''}.`;
  const consigne = document.createElement('section');
  consigne.setAttribute('aria-labelledby', 'ee-production-consigne');
  consigne.className = 'ee-consigne-box';
  const h = document.createElement('h2');
  h.id = 'ee-production-consigne';
  h.textContent = 'Consigne';
  consigne.append(h);
  for (const para of String(p.consigne).split(/\n{2,}/)) {
    const el = document.createElement('p');
    el.textContent = para;
    consigne.append(el);
  }
  const report = document.createElement('div');
  body.append(consigne, report);
  renderReport(report, { report: p.report, texte: p.texte, level: 2, idPrefix: 'ee' });
  $('ee-production-actions').hidden = false;
}

const detail = $('ee-production');
const signin = setupSignin({ onChange: (token) => void show(detail.dataset.productionId, token) });
$('ee-print').addEventListener('click', () => window.print());
