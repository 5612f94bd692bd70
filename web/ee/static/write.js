// The written-practice page /ee/sujets/:id: the word counter against the task's limits, the timer
// (it starts at the first keystroke), the draft kept in this tab, the submission to
// POST /api/ee/productions and the report drawn by the shared renderer (report.js).
// Screen readers: the counter and the clock are not read at every change; the polite status
// #ee-announce says only when the count enters or leaves the task's range and when time runs low.
import { renderReport } from '/t2/static/report.js';
import { setupSignin } from '/t2/static/signin.js';
import { countWords, countState, formatClock, timeNotice } from '/ee/static/count.js';

const $ = (id) => document.getElementById(id);
const form = $('ee-form');
const area = $('ee-text');
const min = Number(form.dataset.min);
const max = Number(form.dataset.max);
const totalMs = Number(form.dataset.minutes) * 60_000;
const draftKey = `palabre.ee.draft.${form.dataset.sujet}`;

let lastState = 'empty';
let startedAt = 0;
let timer = 0;
let lastNotice = '';
let busy = false;

// Called only when the sentence changes (a new count state, a new time notice).
const announce = (text) => {
  $('ee-announce').textContent = text;
};

function updateCount() {
  const words = countWords(area.value);
  $('ee-count').textContent = String(words);
  const s = countState(words, min, max);
  const line = $('ee-count-state');
  line.dataset.state = s.state;
  line.textContent = s.text;
  if (s.state !== lastState && s.state !== 'empty') announce(s.text);
  lastState = s.state;
}

function tick() {
  const left = totalMs - (Date.now() - startedAt);
  $('ee-timer').textContent = formatClock(left);
  const notice = timeNotice(left, totalMs);
  if (notice && notice !== lastNotice) {
    lastNotice = notice;
    $('ee-timer-help').textContent = `(${notice})`;
    announce(notice);
  }
  if (left <= 0) {
    clearInterval(timer);
    $('ee-timer').closest('span').classList.add('ee-time-up');
  }
}

function startClock() {
  if (startedAt) return;
  startedAt = Date.now();
  $('ee-timer-help').textContent = '(chronomètre en marche)';
  timer = setInterval(tick, 1000);
}

area.addEventListener('input', () => {
  startClock();
  updateCount();
  sessionStorage.setItem(draftKey, area.value);
  if (area.getAttribute('aria-invalid') === 'true') {
    area.removeAttribute('aria-invalid');
    $('ee-form-error').hidden = true;
  }
});

function showError(message) {
  const err = $('ee-form-error');
  err.textContent = message;
  err.hidden = false;
  area.setAttribute('aria-invalid', 'true');
  area.setAttribute('aria-describedby', 'ee-limits ee-count-state ee-form-error');
  err.focus();
}

const signin = setupSignin({
  onChange: (token) => {
    $('ee-submit').disabled = busy;
    $('ee-submit-help').textContent = token ? 'La correction prend quelques secondes.' : 'Connectez-vous d’abord.';
  },
});

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  if (busy) return;
  $('ee-form-error').hidden = true;
  const token = signin.token();
  if (!token) {
    showError('Connectez-vous d’abord (section « Connexion » en haut de la page), puis renvoyez votre texte.');
    return;
  }
  const texte = area.value;
  if (!texte.trim()) {
    showError('Votre texte est vide : écrivez votre production avant de l’envoyer.');
    return;
  }
  busy = true;
  $('ee-submit').disabled = true;
  $('ee-progress').textContent = 'Correction en cours…';
  try {
    const res = await fetch('/api/ee/productions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ sujet: form.dataset.sujet, texte }),
    });
    const body = await res.json().catch(() => ({}));
    if (res.status === 401) {
      signin.clear();
      showError('Votre connexion a expiré : reconnectez-vous, puis renvoyez votre texte (il est conservé dans cette page).');
      return;
    }
    if (!res.ok) {
      showError(body.message || `La correction a échoué (le serveur a répondu ${res.status}). Votre texte est conservé : réessayez dans un instant.`);
      return;
    }
    clearInterval(timer);
    sessionStorage.removeItem(draftKey);
    showReport(body, texte);
  } catch {
    showError('Le serveur est injoignable. Votre texte est conservé dans cette page : vérifiez votre connexion, puis renvoyez-le.');
  } finally {
    busy = false;
    $('ee-submit').disabled = false;
    $('ee-progress').textContent = '';
  }
}
);

function showReport(body, texte) {
  $('ee-write').hidden = true;
  const link = $('ee-report-link');
  link.replaceChildren('Ce rapport reste disponible dans « Mes séances » et à cette adresse : ');
  const a = document.createElement('a');
  a.href = body.url;
  a.textContent = 'rapport de cette production';
  link.append(a, '.');
  renderReport($('ee-report-body'), { report: body.report, texte, level: 3, idPrefix: 'ee' });
  $('ee-report').hidden = false;
  document.title = `Rapport — ${document.querySelector('h1').textContent} — palabre`;
  $('ee-report-title').focus();
}

$('ee-print').addEventListener('click', () => window.print());

const draft = sessionStorage.getItem(draftKey);
if (draft) {
  area.value = draft;
  $('ee-count-state').dataset.restored = 'true';
}
updateCount();
