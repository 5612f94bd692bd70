// « Mes séances »: the candidate's past T2 sessions (GET /api/t2/sessions) and written
// productions (GET /api/ee/productions, reopened at /ee/productions/:id) and, on
// /t2/seances/:id, one session's report with its transcript (GET /api/t2/sessions/:id), drawn
// by the same renderer as the end of a live session (report.js).
import { endReasonText, renderReport, saveBlob, score20 } from './report.js';
import { setupSignin } from './signin.js';

const $ = (id) => document.getElementById(id);

const STATUS = {
  graded: 'évaluée',
  ungraded: 'non évaluée',
  interrupted: 'interrompue, évaluation à venir',
  live: 'en cours',
};

const when = (iso) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString('fr-FR', { dateStyle: 'long', timeStyle: 'short' });
};

function el(tag, text, attrs = {}) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

async function api(path, token) {
  const res = await fetch(path, { headers: { authorization: `Bearer ${token}` } });
  const body = res.headers.get('content-type')?.includes('json') ? await res.json().catch(() => ({})) : {};
  return { res, body };
}

function outcome(s) {
  const r = s.report && typeof s.report === 'object' ? s.report : null;
  const parts = [STATUS[s.status] || s.status];
  if (r && typeof r.scoreGlobal === 'number') parts.push(`note ${score20(r.scoreGlobal)}`);
  if (r && r.nclc && r.nclc.niveau) parts.push(`NCLC ${r.nclc.niveau}`);
  return parts.join(' · ');
}

async function showList(token) {
  const status = $('t2-sessions-status');
  const list = $('t2-sessions-list');
  list.replaceChildren();
  if (!token) {
    status.textContent = 'Connectez-vous pour voir vos séances.';
    return;
  }
  status.textContent = 'Chargement…';
  const { res, body } = await api('/api/t2/sessions', token);
  if (!res.ok) {
    status.textContent = body.message || `Le serveur a répondu ${res.status}.`;
    return;
  }
  const sessions = body.sessions || [];
  status.textContent = sessions.length
    ? `${sessions.length} séance${sessions.length > 1 ? 's' : ''}, la plus récente en premier.`
    : 'Aucune séance pour l’instant. Choisissez un sujet dans « Tâche 2 en direct » pour commencer.';
  for (const s of sessions) {
    const li = el('li', undefined, { 'data-session-id': s.id });
    const a = el('a', s.sujet.titre || s.sujet.id, { href: `/t2/seances/${encodeURIComponent(s.id)}` });
    const meta = el('p', `${when(s.startedAt)} · ${outcome(s)}`, { class: 'hint' });
    li.append(a, meta);
    list.append(li);
  }
}

const WRITTEN_TASKS = { EE_T1: 'Tâche 1', EE_T2: 'Tâche 2', EE_T3: 'Tâche 3' };

/** The written productions, beside the sessions; a server without the written practice says so. */
async function showWritten(token) {
  const status = $('ee-productions-status');
  const list = $('ee-productions-list');
  if (!status || !list) return;
  list.replaceChildren();
  if (!token) {
    status.textContent = 'Connectez-vous pour voir vos productions.';
    return;
  }
  status.textContent = 'Chargement…';
  const { res, body } = await api('/api/ee/productions', token);
  if (res.status === 404) {
    status.textContent = 'L’entraînement à l’expression écrite n’est pas proposé par ce serveur.';
    return;
  }
  if (!res.ok) {
    status.textContent = body.message || `Le serveur a répondu ${res.status}.`;
    return;
  }
  const items = body.productions || [];
  status.textContent = items.length
    ? `${items.length} production${items.length > 1 ? 's' : ''}, la plus récente en premier.`
    : 'Aucune production écrite pour l’instant.';
  for (const p of items) {
    const li = el('li', undefined, { 'data-production-id': p.id });
    const a = el('a', `${WRITTEN_TASKS[p.tache] || p.tache} — ${p.sujet.titre || 'sujet libre'}`, { href: `/ee/productions/${encodeURIComponent(p.id)}` });
    const parts = [when(p.createdAt)];
    if (typeof p.mots === 'number') parts.push(`${p.mots} mots`);
    if (typeof p.scoreGlobal === 'number') parts.push(`note ${score20(p.scoreGlobal)}`);
    if (p.nclc) parts.push(`NCLC ${p.nclc}`);
    li.append(a, el('p', parts.join(' · '), { class: 'hint' }));
    list.append(li);
  }
}

async function download(path, token, name, button) {
  const res = await fetch(path, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    button.textContent = `Téléchargement impossible : ${body.message || res.status}`;
    return;
  }
  saveBlob(await res.blob(), name);
}

async function showSession(id, token) {
  const status = $('t2-session-status');
  const body = $('t2-session-body');
  body.replaceChildren();
  $('t2-session-actions').hidden = true;
  if (!token) {
    status.textContent = 'Connectez-vous pour voir ce rapport.';
    return;
  }
  status.textContent = 'Chargement…';
  const { res, body: s } = await api(`/api/t2/sessions/${encodeURIComponent(id)}`, token);
  if (!res.ok) {
    status.textContent = s.message || `Le serveur a répondu ${res.status}.`;
    return;
  }
  $('t2-session-title').textContent = `Rapport — ${s.sujet.titre || s.sujet.id}`;
  document.title = `Rapport — ${s.sujet.titre || s.sujet.id} — palabre`;
  const why = endReasonText(s.endReason);
  status.textContent = `Séance du ${when(s.startedAt)}${why ? ` ; fin : ${why}` : ''}. ${s.report ? '' : 'Cette séance n’a pas de rapport : elle n’a pas pu être évaluée.'}`.trim();
  renderReport(body, { report: s.report, transcript: s.transcript, level: 2 });
  $('t2-session-actions').hidden = false;
  const audio = $('t2-session-audio');
  // Pending: the server stopped before assembling the WAV; it is finished shortly after (409 until then).
  audio.hidden = !s.hasAudio || Boolean(s.audioPending);
  const noAudio = $('t2-session-no-audio');
  noAudio.hidden = s.hasAudio && !s.audioPending;
  noAudio.textContent = s.audioPending
    ? 'L’enregistrement de cette séance est en cours de finalisation : rechargez la page dans quelques instants.'
    : s.mode === 'text' ? 'Séance en mode texte : il n’y a pas d’enregistrement audio.' : 'Aucun enregistrement audio n’a été conservé pour cette séance.';
  $('t2-session-transcript').onclick = (e) => download(`/api/t2/sessions/${encodeURIComponent(id)}/transcript.txt`, signin.token(), `t2-${id}.txt`, e.currentTarget);
  audio.onclick = (e) => download(`/api/t2/sessions/${encodeURIComponent(id)}/audio.wav`, signin.token(), `t2-${id}.wav`, e.currentTarget);
}

const detail = $('t2-session');
const signin = setupSignin({
  onChange: (token) => {
    if (detail) void showSession(detail.dataset.sessionId, token);
    else {
      void showList(token);
      void showWritten(token);
    }
  },
});
$('t2-print')?.addEventListener('click', () => window.print());
