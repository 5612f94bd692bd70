// T2 live page (spec §6 steps 3–17): opens /t2/live, streams the microphone as 16 kHz PCM16,
// plays the interlocutor's 24 kHz PCM16 through a small jitter buffer, shows states, the exam
// timer, the transcript, the report and "Télécharger l'audio". Text mode when the server says so.
import { renderReport, saveBlob, transcriptFile } from './report.js';
import { currentToken, setupSignin } from './signin.js';

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

// The page's own words for each close code (spec §8), addressed to the candidate.
const CLOSE_MESSAGES = {
  4001: 'Connexion requise : votre jeton est absent, invalide ou expiré. Reconnectez-vous ci-dessus, puis réessayez.',
  4003: 'Le dialogue en direct de la tâche 2 fait partie de l’offre Premium, que votre compte n’a pas.',
  4004: 'Ce sujet n’existe pas ou plus. Choisissez-en un autre dans la liste.',
  4422: 'Vous n’avez rien dit pendant la séance : il n’y a rien à évaluer. Parlez (ou écrivez en mode texte) avant de terminer.',
  4429: 'Trop de séances sont en cours en ce moment. Réessayez dans un instant.',
  1011: 'L’interlocuteur est indisponible. Réessayez dans un instant.',
  1001: 'Le serveur redémarre. Réessayez dans un instant.',
  1006: 'La connexion a été coupée.',
  4409: 'Votre séance se poursuit dans un autre onglet ou une autre fenêtre : une seule séance à la fois.',
  4410: 'La séance n’a pas pu être reprise : elle s’était terminée entre-temps.',
  4503: 'La séance n’a pas pu être reprise à temps sur un autre serveur. Ce que vous aviez dit sera évalué : le rapport sera dans « Mes séances ».',
};

// Why the dialogue ended (the server's `ended` frame), when it was not « Terminer » in this tab.
const END_MESSAGES = {
  replaced: 'Cette séance a été terminée dans cet onglet parce qu’une nouvelle séance a été démarrée dans un autre onglet ou une autre fenêtre.',
  time: 'Le temps de l’épreuve est écoulé.',
  idle: 'La séance s’est arrêtée après un long silence.',
  disconnected: 'La connexion a été perdue trop longtemps : la séance s’est arrêtée.',
  interlocutor_lost: 'L’interlocuteur ne répondait plus : la séance s’est arrêtée.',
  server_shutdown: 'Le serveur a redémarré : la séance s’est arrêtée comme si vous aviez appuyé sur « Terminer ».',
};

/** Set while a session runs, so a reload resumes it (or tells the candidate what became of it). */
const ACTIVE_KEY = 'palabre.t2.active';

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

function premiumHelp(container, dev) {
  container.replaceChildren();
  const p = el('p', 'L’offre Premium donne le dialogue en direct de la tâche 2 : un interlocuteur qui vous répond à voix haute comme à l’examen, un rapport noté sur les quatre critères officiels, l’enregistrement audio et la transcription de chaque séance.');
  const how = el('p', dev
    ? 'En mode développement, reconnectez-vous ci-dessus en choisissant l’offre Premium.'
    : 'Pour l’obtenir, passez à l’offre Premium depuis votre espace sur la plateforme qui vous donne accès à palabre, puis rouvrez cette page depuis elle.');
  container.append(p, how);
}

function main() {
  const form = $('t2-start');
  if (!form) return;
  const sujet = form.dataset.sujet;
  const titre = form.dataset.titre || sujet;
  const mode = form.dataset.mode;
  const examMs = Number(form.dataset.examMs);
  // How long the server keeps a session whose socket dropped (T2_RESUME_GRACE_MS).
  const graceMs = Number(form.dataset.graceMs) || 0;
  const startButton = $('t2-start-button');

  let ws;
  let capture;
  let player;
  let timer;
  let deadline = 0;
  let lastError;
  let report;
  let currentLi;
  let currentSpeaker;
  let running = false;
  let turns = [];
  // Resume after a dropped socket: when the loss began, the attempts so far, the pending one.
  let liveStarted = false;
  let lostAt = 0;
  let attempts = 0;
  let retryTimer;
  let resumedNote;
  // Why the server ended the dialogue; whether this start ends the session live in another tab.
  let endReason;
  let takeover = false;

  const signin = setupSignin({ onChange: () => syncStart() });
  function syncStart() {
    const signedIn = Boolean(currentToken());
    // One session at a time: « Démarrer » stays disabled while one runs.
    startButton.disabled = running || !signedIn;
    $('t2-start-help').textContent = running ? 'Une séance est en cours.' : signedIn ? '' : 'Connectez-vous d’abord.';
  }
  syncStart();

  // A reload (or a closed tab) during a session: the server still grades what was said.
  const previous = sessionStorage.getItem(ACTIVE_KEY);
  let info = {};
  try {
    info = previous ? JSON.parse(previous) : {};
  } catch {
    /* unreadable: say it without the title */
  }
  // The same subject's page, reloaded within the grace period: the server still holds the session.
  const resumable = previous && info.sujet === sujet && graceMs > 0 && Date.now() - Number(info.at || 0) < graceMs - 1000 && Boolean(currentToken());
  if (previous && !resumable) {
    sessionStorage.removeItem(ACTIVE_KEY);
    $('t2-interrupted-text').textContent = `La séance${info.titre ? ` « ${info.titre} »` : ''} s’est arrêtée quand la page a été rechargée ou fermée. Elle n’est pas perdue : ce que vous avez dit est évalué, et son rapport sera dans « Mes séances » dans quelques instants.`;
    $('t2-interrupted').hidden = false;
  }

  const setState = (value) => {
    $('t2-state').textContent = STATE_LABELS[value] || value;
    document.body.dataset.t2State = value;
  };

  const finished = () => {
    running = false;
    sessionStorage.removeItem(ACTIVE_KEY);
    syncStart();
  };

  const stopCapture = () => {
    if (capture) capture.stop();
    capture = undefined;
  };
  const stopAudio = () => {
    stopCapture();
    clearInterval(timer);
  };

  /** The dialogue is over: no countdown, no « Il reste 30 secondes », nothing left to end. */
  const dialogueOver = () => {
    $('t2-timer-line').hidden = true;
    $('t2-warning').hidden = true;
    $('t2-end').hidden = true;
    if ($('t2-end-dialog').open) $('t2-end-dialog').close();
  };

  const startCapture = async () => {
    if (mode !== 'audio' || capture) return;
    const sock = ws;
    try {
      capture = await Capture.start((frame) => {
        if (ws && ws.readyState === WebSocket.OPEN) ws.send(frame);
      });
    } catch (err) {
      lastError = { message: `Micro indisponible (${err.name}). Autorisez le micro, ou utilisez le mode texte.` };
      sock.close(4000, 'MICROPHONE');
    }
  };

  const startTimer = (remainingMs) => {
    clearInterval(timer);
    deadline = Date.now() + remainingMs;
    const tick = () => ($('t2-timer').textContent = formatMs(deadline - Date.now()));
    tick();
    timer = setInterval(tick, 250);
  };

  /** The live status line under the state (a polite live region): reconnecting, resumed. */
  const linkNote = (text) => {
    clearTimeout(resumedNote);
    $('t2-reconnecting').textContent = text || '';
    $('t2-reconnecting').hidden = !text;
  };

  const showError = (code) => {
    const wasLive = running && turns.length > 0;
    finished();
    stopAudio();
    dialogueOver();
    if (player) player.close();
    player = undefined;
    setState('error');
    const help = $('t2-error-help');
    help.replaceChildren();
    let title = 'Erreur';
    // Known codes get the page's own words (the server's may speak of « le candidat »).
    // A fenced server (lost its database) says in its own words what became of the session.
    const own = lastError && lastError.name === 'STORE_UNAVAILABLE' ? lastError.message : undefined;
    let message = own || CLOSE_MESSAGES[code] || (lastError && lastError.message) || `Erreur (${code}).`;
    clearTimeout(retryTimer);
    lostAt = 0;
    linkNote('');
    if (code === 4410) {
      title = 'Connexion perdue…';
      const p = el('p', 'Si vous aviez parlé, ce que vous avez dit est évalué et son rapport est dans « Mes séances ».');
      help.append(p, el('p'));
      help.lastChild.append(el('a', 'Ouvrir Mes séances', { href: '/t2/seances' }));
    }
    if (code === 1006 || code === 1001) {
      title = 'Connexion perdue…';
      if (wasLive) {
        message = 'Connexion perdue pendant la séance.';
        const p = el('p', 'Ce que vous avez dit jusque-là est conservé : la séance est évaluée et son rapport sera dans « Mes séances » dans quelques instants.');
        const a = el('a', 'Ouvrir Mes séances', { href: '/t2/seances' });
        help.append(p, el('p'));
        help.lastChild.append(a);
      }
    }
    if (code === 4003) {
      title = 'Offre Premium nécessaire';
      premiumHelp(help, $('t2-signin').dataset.dev === 'true');
    }
    if (code === 4001) {
      title = 'Connexion requise';
      signin.clear();
    }
    if (code === 4409) title = 'Séance poursuivie ailleurs';
    // Taking over was asked for, but the other session runs on another server: it must end there.
    if (code === 4409 && lastError && lastError.name === 'ACTIVE_ELSEWHERE') {
      title = 'Une séance est déjà en cours';
      message = 'Votre séance en cours dans un autre onglet ou une autre fenêtre ne peut pas être terminée d’ici : terminez-la dans cet onglet, puis réessayez.';
    }
    if (code === 1000 && endReason === 'replaced') {
      title = 'Séance terminée dans cet onglet';
      message = END_MESSAGES.replaced;
    }
    $('t2-error-title').textContent = title;
    $('t2-error-message').textContent = `${message} (code ${code})`;
    $('t2-retry').textContent = code === 1006 || code === 1001 || code === 4410 || code === 1000 ? 'Commencer une nouvelle séance' : 'Réessayer';
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
      turns.push({ speaker: m.speaker, text: '' });
    }
    const span = currentLi.querySelector('span');
    span.textContent = m.final ? m.text : span.textContent + m.text;
    turns[turns.length - 1].text = span.textContent;
    if (m.final) currentLi.dataset.final = 'true';
  };

  /** The candidate's session is live in another tab: ask before ending it (nothing ended yet). */
  const showElsewhere = () => {
    finished();
    stopAudio();
    if (player) player.close();
    player = undefined;
    $('t2-live').hidden = true;
    $('t2-elsewhere').hidden = false;
    $('t2-elsewhere-title').setAttribute('tabindex', '-1');
    $('t2-elsewhere-title').focus();
  };

  const start = async (opts = {}) => {
    // A second start while one runs is refused: the first session would run on unseen.
    if (running) return;
    const token = signin.token();
    if (!token) {
      signin.refresh();
      $('t2-signin-status').focus();
      return;
    }
    running = true;
    syncStart();
    takeover = opts.takeover === true;
    endReason = undefined;
    lastError = undefined;
    report = undefined;
    currentLi = undefined;
    turns = [];
    liveStarted = false;
    lostAt = 0;
    attempts = 0;
    deadline = 0;
    $('t2-interrupted').hidden = true;
    $('t2-elsewhere').hidden = true;
    $('t2-error').hidden = true;
    $('t2-timer-line').hidden = false;
    $('t2-end').hidden = false;
    $('t2-live-transcript').hidden = false;
    $('t2-ended-note').hidden = true;
    $('t2-report').hidden = true;
    $('t2-live').hidden = false;
    $('t2-end').disabled = false;
    $('t2-transcript').replaceChildren();
    $('t2-warning').hidden = true;
    linkNote('');
    setState('connecting');
    $('t2-live-title').setAttribute('tabindex', '-1');
    $('t2-live-title').focus();
    sessionStorage.setItem(ACTIVE_KEY, JSON.stringify({ sujet, titre, at: Date.now() }));
    connect(false);
  };

  /** The page came back (a reload) while the server may still hold the session. */
  const resumeAfterReload = () => {
    running = true;
    syncStart();
    $('t2-live').hidden = false;
    $('t2-end').disabled = true;
    setState('connecting');
    lostAt = Date.now();
    linkNote('Connexion perdue, reprise de votre séance…');
    connect(true);
  };

  /** The socket dropped during the dialogue: try again with the same token while the server waits. */
  const lost = () => {
    stopCapture();
    if (!lostAt) lostAt = Date.now();
    $('t2-end').disabled = true;
    $('t2-text-form').hidden = true;
    if (Date.now() - lostAt > graceMs - 1000) {
      showError(1006);
      return;
    }
    linkNote('Connexion perdue, reprise…');
    const delay = Math.min(4000, 250 * 2 ** attempts++);
    retryTimer = setTimeout(() => connect(true), delay);
  };

  /** The session as the server has it, after a reconnect: transcript, state, time left. */
  const onResume = (m) => {
    lostAt = 0;
    attempts = 0;
    liveStarted = true;
    $('t2-transcript').replaceChildren();
    currentLi = undefined;
    turns = [];
    for (const t of m.transcript) onTranscript(t);
    setState(m.state);
    startTimer(m.remainingMs);
    if (m.remainingMs <= 30000) {
      $('t2-warning').textContent = `Il reste ${Math.ceil(m.remainingMs / 1000)} secondes.`;
      $('t2-warning').hidden = false;
    }
    $('t2-end').disabled = false;
    linkNote('Séance reprise : vous pouvez continuer.');
    resumedNote = setTimeout(() => linkNote(''), 5000);
    if (mode === 'text') $('t2-text-form').hidden = false;
    void startCapture();
  };

  const connect = (resume) => {
    const token = signin.token();
    if (!token) {
      showError(4001);
      return;
    }
    const q = new URLSearchParams({ sujet, mode });
    if (resume) q.set('resume', '1');
    else if (takeover) q.set('takeover', '1');
    // The JWT travels as a subprotocol, not in the URL: proxies and access logs write the
    // request line (with its query), not this header.
    const sock = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/t2/live?${q}`, ['palabre.t2', `palabre.bearer.${token}`]);
    ws = sock;
    sock.binaryType = 'arraybuffer';
    if (mode === 'audio' && !player) player = new Player();
    sock.onmessage = (ev) => {
      if (sock !== ws) return;
      if (typeof ev.data !== 'string') {
        if (player) player.play(ev.data);
        return;
      }
      const m = JSON.parse(ev.data);
      if (m.type === 'resume') onResume(m);
      else if (m.type === 'state') {
        setState(m.value);
        if (m.value === 'listening' && !deadline) {
          liveStarted = true;
          startTimer(examMs);
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
      } else if (m.type === 'ended') {
        endReason = m.reason;
        dialogueOver();
      } else if (m.type === 'report') report = m;
      else if (m.type === 'error') {
        if (m.code >= 4400 && m.code < 4500 && ![4409, 4410, 4422, 4429].includes(m.code)) return; // a refused frame: nothing changes
        lastError = m;
      }
    };
    sock.onclose = (ev) => {
      if (sock !== ws) return;
      $('t2-text-form').hidden = true;
      // A network drop or a restarting proxy mid-dialogue: the server keeps the session a while.
      // 4503: the server stops and another one continues the session, or is taking it over.
      if ((ev.code === 1006 || ev.code === 1001 || ev.code === 4503) && running && graceMs > 0 && (liveStarted || lostAt)) {
        lost();
        return;
      }
      deadline = 0;
      stopAudio();
      linkNote('');
      if (ev.code === 4409 && lastError && lastError.name === 'ACTIVE_ELSEWHERE' && !takeover) {
        showElsewhere();
        return;
      }
      if (ev.code === 1000 && report) {
        finished();
        dialogueOver();
        setState('ended');
        // The report holds the transcript: the live one is not shown a second time.
        $('t2-live').hidden = true;
        const why = END_MESSAGES[endReason];
        $('t2-ended-note').textContent = why ? `${why} Ce que vous aviez dit a été évalué : voici le rapport.` : '';
        $('t2-ended-note').hidden = !why;
        renderReport($('t2-report-body'), { report: report.report, transcript: turns, level: 3 });
        $('t2-report').hidden = false;
        $('t2-download').hidden = !report.audioUrl;
        $('t2-no-audio').hidden = Boolean(report.audioUrl) || mode !== 'text';
        $('t2-end').disabled = true;
        $('t2-report-title').setAttribute('tabindex', '-1');
        $('t2-report-title').focus();
      } else if (ev.code === 1000 && endReason === 'replaced') showError(1000);
      else if (ev.code === 1000) {
        finished();
        dialogueOver();
        setState('ended');
      } else showError(ev.code);
    };
    // A fresh session opens the microphone at once; a resumed one when the server confirms it.
    if (!resume) sock.onopen = () => void startCapture();
  };

  // Leaving the page (a reload): when, so the next load knows whether the server still waits.
  window.addEventListener('pagehide', () => {
    if (running) sessionStorage.setItem(ACTIVE_KEY, JSON.stringify({ sujet, titre, at: Date.now() }));
  });
  if (resumable) resumeAfterReload();

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void start();
  });
  // « Terminer » cannot be undone: it asks first (a modal dialog, Échap = continue).
  $('t2-end').addEventListener('click', () => $('t2-end-dialog').showModal());
  $('t2-end-cancel').addEventListener('click', () => {
    $('t2-end-dialog').close();
    $('t2-end').focus();
  });
  $('t2-end-confirm').addEventListener('click', () => {
    $('t2-end-dialog').close();
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'end' }));
    stopAudio();
    $('t2-end').disabled = true;
  });
  $('t2-retry').addEventListener('click', () => void start());
  $('t2-takeover').addEventListener('click', () => void start({ takeover: true }));
  $('t2-takeover-cancel').addEventListener('click', () => {
    $('t2-elsewhere').hidden = true;
    $('t2-start-button').focus();
  });
  $('t2-text-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('t2-text').value.trim();
    if (!text || !ws || ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify({ type: 'text', text }));
    $('t2-text').value = '';
  });
  $('t2-print').addEventListener('click', () => window.print());
  $('t2-download-transcript').addEventListener('click', () => {
    saveBlob(new Blob([transcriptFile(titre, turns)], { type: 'text/plain;charset=utf-8' }), `t2-${sujet}-transcription.txt`);
  });
  $('t2-download').addEventListener('click', async () => {
    if (!report || !report.audioUrl) return;
    const res = await fetch(report.audioUrl, { headers: { authorization: `Bearer ${signin.token()}` } });
    if (!res.ok) {
      $('t2-download').textContent = `Téléchargement impossible (${res.status}) : reconnectez-vous puis réessayez`;
      return;
    }
    saveBlob(await res.blob(), `t2-${report.productionId}.wav`);
  });
}

main();
