// T2 live page (spec §6 steps 3–17): opens /t2/live, streams the microphone as 16 kHz PCM16,
// plays the interlocutor's 24 kHz PCM16 through a small jitter buffer, shows states, the exam
// timer, the transcript, the report and "Télécharger l'audio". Text mode when the server says so.
const $ = (id) => document.getElementById(id);

const STATE_LABELS = {
  connecting: 'connexion…',
  listening: 'à vous : l’interlocuteur écoute',
  interlocutor_speaking: 'l’interlocuteur parle',
  finishing: 'fin de l’échange…',
  evaluating: 'évaluation en cours…',
  ended: 'terminé',
  error: 'erreur',
};

const CLOSE_MESSAGES = {
  4001: 'Connexion requise : le jeton est absent, invalide ou expiré. Connectez-vous puis réessayez.',
  4003: 'Le dialogue en direct de la tâche 2 fait partie de l’offre Premium.',
  4004: 'Ce sujet n’existe pas ou plus. Choisissez-en un autre dans la liste.',
  4422: 'Vous n’avez rien dit : il n’y a rien à évaluer.',
  4429: 'Trop de sessions en cours. Réessayez dans un instant.',
  1011: 'L’interlocuteur est indisponible. Réessayez dans un instant.',
  1006: 'La connexion a été coupée. Réessayez.',
};

/** Jitter buffer: each 24 kHz chunk is scheduled right after the previous one, at least JITTER_S ahead. */
const JITTER_S = 0.08;

class Player {
  constructor() {
    this.ctx = new AudioContext({ sampleRate: 24000 });
    this.next = 0;
    this.sources = new Set();
  }
  play(arrayBuffer) {
    const pcm = new Int16Array(arrayBuffer);
    if (pcm.length === 0) return;
    // Samples scheduled so far: shown to tests and to assistive tooling, never styled.
    document.body.dataset.t2Played = String(Number(document.body.dataset.t2Played || 0) + pcm.length);
    const buf = this.ctx.createBuffer(1, pcm.length, 24000);
    const ch = buf.getChannelData(0);
    for (let i = 0; i < pcm.length; i++) ch[i] = pcm[i] / 0x8000;
    const src = this.ctx.createBufferSource();
    src.buffer = buf;
    src.connect(this.ctx.destination);
    const at = Math.max(this.next, this.ctx.currentTime + JITTER_S);
    src.start(at);
    this.next = at + buf.duration;
    this.sources.add(src);
    src.onended = () => this.sources.delete(src);
  }
  /** Barge-in: drop what is queued. */
  flush() {
    for (const s of this.sources) {
      try {
        s.stop();
      } catch {
        /* already stopped */
      }
    }
    this.sources.clear();
    this.next = 0;
  }
  close() {
    this.flush();
    void this.ctx.close();
  }
}

class Capture {
  static async start(onFrame) {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
    const ctx = new AudioContext();
    await ctx.audioWorklet.addModule('/t2/static/capture-worklet.js');
    const source = ctx.createMediaStreamSource(stream);
    const node = new AudioWorkletNode(ctx, 'pcm16-capture');
    node.port.onmessage = (e) => onFrame(e.data);
    source.connect(node);
    const c = new Capture();
    c.stream = stream;
    c.ctx = ctx;
    c.node = node;
    return c;
  }
  stop() {
    this.node.port.postMessage('flush');
    for (const t of this.stream.getTracks()) t.stop();
    void this.ctx.close();
  }
}

function formatMs(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function el(tag, text, attrs = {}) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function renderReport(msg) {
  const body = $('t2-report-body');
  body.replaceChildren();
  const report = msg.report || {};
  if (report.detectorsOnly) body.append(el('p', 'Rapport des seuls détecteurs : le modèle d’évaluation n’a pas répondu.'));
  const global = report.scoreGlobal ?? report.global ?? report.score;
  if (global !== undefined) body.append(el('p', `Score global : ${typeof global === 'object' ? JSON.stringify(global) : global}`));
  const criteres = report.criteres;
  if (criteres && typeof criteres === 'object') {
    const table = el('table');
    table.append(el('caption', 'Critères officiels'));
    const head = el('tr');
    head.append(el('th', 'Critère', { scope: 'col' }), el('th', 'Score', { scope: 'col' }));
    table.append(head);
    for (const [name, c] of Object.entries(criteres)) {
      const tr = el('tr');
      const score = c && typeof c === 'object' ? (c.evalue === false ? 'non évalué' : String(c.score ?? '')) : String(c);
      tr.append(el('th', name, { scope: 'row' }), el('td', score));
      table.append(tr);
    }
    body.append(table);
  }
  const t2 = report.t2;
  if (t2 && t2.phonologie) body.append(el('p', t2.phonologie.note));
  if (t2 && t2.rules) {
    body.append(el('h3', 'Respect des règles par l’interlocuteur'));
    body.append(el('p', `${t2.rules.compliant} réponse(s) conforme(s) sur ${t2.rules.replies}.`));
    const ul = el('ul');
    for (const r of t2.rules.rules) if (r.violations > 0) ul.append(el('li', `${r.label} : ${r.violations}`));
    if (ul.children.length) body.append(ul);
  }
  const details = el('details');
  details.append(el('summary', 'Rapport complet (JSON)'), el('pre', JSON.stringify(report, null, 2)));
  body.append(details);
}

function main() {
  const form = $('t2-start');
  if (!form) return;
  const sujet = form.dataset.sujet;
  const mode = form.dataset.mode;
  const examMs = Number(form.dataset.examMs);
  const tokenInput = $('t2-token');
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get('token')) {
    sessionStorage.setItem('palabre.token', hash.get('token'));
    history.replaceState(null, '', location.pathname);
  }
  tokenInput.value = sessionStorage.getItem('palabre.token') || '';

  let ws;
  let capture;
  let player;
  let timer;
  let deadline = 0;
  let lastError;
  let report;
  let currentLi;
  let currentSpeaker;

  const setState = (value) => {
    $('t2-state').textContent = STATE_LABELS[value] || value;
    document.body.dataset.t2State = value;
  };

  const stopAudio = () => {
    if (capture) capture.stop();
    capture = undefined;
    clearInterval(timer);
  };

  const showError = (code) => {
    stopAudio();
    if (player) player.close();
    player = undefined;
    setState('error');
    const message = (lastError && lastError.message) || CLOSE_MESSAGES[code] || `Erreur (${code}).`;
    $('t2-error-message').textContent = `${message} (code ${code})`;
    $('t2-error').hidden = false;
    $('t2-end').disabled = true;
    $('t2-error-title').setAttribute('tabindex', '-1');
    $('t2-error-title').focus();
  };

  const onTranscript = (m) => {
    const list = $('t2-transcript');
    if (!currentLi || currentSpeaker !== m.speaker || currentLi.dataset.final === 'true') {
      currentLi = el('li', '', { 'data-speaker': m.speaker });
      currentLi.append(el('strong', m.speaker === 'candidate' ? 'Vous : ' : 'Interlocuteur : '), el('span', ''));
      list.append(currentLi);
      currentSpeaker = m.speaker;
    }
    const span = currentLi.querySelector('span');
    span.textContent = m.final ? m.text : span.textContent + m.text;
    if (m.final) currentLi.dataset.final = 'true';
  };

  const start = async () => {
    lastError = undefined;
    report = undefined;
    currentLi = undefined;
    $('t2-error').hidden = true;
    $('t2-report').hidden = true;
    $('t2-live').hidden = false;
    $('t2-end').disabled = false;
    $('t2-transcript').replaceChildren();
    $('t2-warning').hidden = true;
    setState('connecting');
    $('t2-live-title').setAttribute('tabindex', '-1');
    $('t2-live-title').focus();
    const token = tokenInput.value.trim();
    sessionStorage.setItem('palabre.token', token);
    const q = new URLSearchParams({ token, sujet, mode });
    ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/t2/live?${q}`);
    ws.binaryType = 'arraybuffer';
    if (mode === 'audio') player = new Player();
    ws.onmessage = (ev) => {
      if (typeof ev.data !== 'string') {
        if (player) player.play(ev.data);
        return;
      }
      const m = JSON.parse(ev.data);
      if (m.type === 'state') {
        setState(m.value);
        if (m.value === 'listening' && !deadline) {
          deadline = Date.now() + examMs;
          timer = setInterval(() => ($('t2-timer').textContent = formatMs(deadline - Date.now())), 250);
          if (mode === 'text') {
            $('t2-text-form').hidden = false;
            $('t2-text').focus();
          }
        }
        if (m.value === 'finishing' || m.value === 'evaluating') stopAudio();
      } else if (m.type === 'interrupted') {
        if (player) player.flush();
      } else if (m.type === 'transcript') onTranscript(m);
      else if (m.type === 'warning') {
        $('t2-warning').textContent = m.message;
        $('t2-warning').hidden = false;
      } else if (m.type === 'report') report = m;
      else if (m.type === 'error') {
        if (m.code >= 4400 && m.code < 4500 && m.code !== 4422 && m.code !== 4429) return; // a refused frame: nothing changes
        lastError = m;
      }
    };
    ws.onclose = (ev) => {
      deadline = 0;
      stopAudio();
      $('t2-text-form').hidden = true;
      if (ev.code === 1000 && report) {
        setState('ended');
        renderReport(report);
        $('t2-report').hidden = false;
        $('t2-download').hidden = !report.audioUrl;
        $('t2-end').disabled = true;
        $('t2-report-title').setAttribute('tabindex', '-1');
        $('t2-report-title').focus();
      } else if (ev.code === 1000) {
        setState('ended');
      } else showError(ev.code);
    };
    ws.onopen = async () => {
      if (mode !== 'audio') return;
      try {
        capture = await Capture.start((frame) => {
          if (ws.readyState === WebSocket.OPEN) ws.send(frame);
        });
      } catch (err) {
        lastError = { message: `Micro indisponible (${err.name}). Autorisez le micro, ou utilisez le mode texte.` };
        ws.close(4000, 'MICROPHONE');
      }
    };
  };

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void start();
  });
  $('t2-end').addEventListener('click', () => {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'end' }));
    stopAudio();
    $('t2-end').disabled = true;
  });
  $('t2-retry').addEventListener('click', () => void start());
  $('t2-text-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('t2-text').value.trim();
    if (!text || !ws || ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify({ type: 'text', text }));
    $('t2-text').value = '';
  });
  $('t2-download').addEventListener('click', async () => {
    if (!report || !report.audioUrl) return;
    const res = await fetch(report.audioUrl, { headers: { authorization: `Bearer ${sessionStorage.getItem('palabre.token') || ''}` } });
    if (!res.ok) {
      $('t2-download').textContent = `Téléchargement impossible (${res.status})`;
      return;
    }
    const url = URL.createObjectURL(await res.blob());
    const a = el('a', '', { href: url, download: `t2-${report.productionId}.wav` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  });
}

main();
