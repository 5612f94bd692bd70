// /inspect client: live actors, their statechart with the current state highlighted, and the
// event log streamed over /inspect/ws. Everything received is rendered as text (textContent),
// except the chart SVG, which comes from this server's own /inspect/charts endpoint.

const $ = (id) => document.getElementById(id);
const actorsEl = $('actors');
const emptyEl = $('actors-empty');
const chartEl = $('chart');
const stateLine = $('chart-state');
const logEl = $('log');
const pauseBtn = $('pause');
const filterInput = $('filter');
const connectionEl = $('connection');

const MAX_LOG = 500;
let conversations = [];
let selected = null;
let chartKind = null;
let paused = false;
const records = [];

function activeIds(value, prefix) {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return [`${prefix}.${value}`];
  const ids = [];
  for (const [key, child] of Object.entries(value)) {
    ids.push(`${prefix}.${key}`);
    ids.push(...activeIds(child, `${prefix}.${key}`));
  }
  return ids;
}

function stateText(value) {
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function renderActors() {
  actorsEl.replaceChildren();
  emptyEl.hidden = conversations.length > 0;
  for (const c of conversations) {
    const li = document.createElement('li');
    const btn = document.createElement('button');
    btn.type = 'button';
    btn.dataset.systemId = c.systemId;
    btn.setAttribute('aria-pressed', String(c.systemId === selected));
    const name = document.createElement('span');
    name.textContent = c.systemId;
    const kind = document.createElement('span');
    kind.className = 'actor-kind';
    kind.textContent = c.kind;
    const state = document.createElement('span');
    state.className = 'actor-state';
    state.textContent = stateText(c.value);
    btn.append(name, kind, state);
    btn.addEventListener('click', () => select(c.systemId));
    li.append(btn);
    actorsEl.append(li);
  }
}

async function loadChart(kind) {
  if (chartKind === kind) return;
  chartKind = kind;
  chartEl.replaceChildren();
  const res = await fetch(`/inspect/charts/${encodeURIComponent(kind)}.svg`, { credentials: 'same-origin' });
  if (!res.ok) {
    const p = document.createElement('p');
    p.textContent = `Pas de statechart enregistré pour « ${kind} ».`;
    chartEl.append(p);
    return;
  }
  const doc = new DOMParser().parseFromString(await res.text(), 'image/svg+xml');
  const svg = doc.documentElement;
  if (svg && svg.nodeName === 'svg') chartEl.append(document.importNode(svg, true));
}

function highlight(value) {
  const svg = chartEl.querySelector('svg');
  if (!svg) return;
  const root = svg.querySelector('g[data-state-id]');
  const rootId = root ? root.getAttribute('data-state-id') : '';
  const ids = new Set([rootId, ...activeIds(value, rootId)]);
  for (const g of svg.querySelectorAll('g[data-state-id]')) {
    g.classList.toggle('active', ids.has(g.getAttribute('data-state-id')) && g !== root);
  }
  stateLine.textContent = `${selected} — état : ${stateText(value)}`;
  // Bring the current (innermost) state into view inside the chart's scroll box.
  const current = svg.querySelector('g.state-atomic.active, g.state-final.active');
  if (current && !chartEl.classList.contains('fit') && typeof current.getBBox === 'function') {
    const box = current.getBBox();
    chartEl.scrollLeft = Math.max(0, box.x - chartEl.clientWidth / 3);
    chartEl.scrollTop = Math.max(0, box.y - chartEl.clientHeight / 3);
  }
}

async function select(systemId) {
  selected = systemId;
  const conv = conversations.find((c) => c.systemId === systemId);
  renderActors();
  if (!conv) return;
  await loadChart(conv.kind);
  highlight(conv.value);
  records.length = 0;
  logEl.replaceChildren();
  socket?.send(JSON.stringify({ type: 'history', systemId }));
}

function matchesFilter(record) {
  const f = filterInput.value.trim().toLowerCase();
  if (selected && record.conversation !== selected) return false;
  if (!f) return true;
  return (record.eventType || '').toLowerCase().includes(f);
}

function logItem(record) {
  const li = document.createElement('li');
  li.dataset.eventType = record.eventType || '';
  const time = document.createElement('span');
  time.className = 'ev-time';
  time.textContent = new Date(record.at).toLocaleTimeString('fr-FR', { hour12: false });
  const type = document.createElement('span');
  type.className = 'ev-type';
  type.textContent = `${record.type === 'snapshot' ? '→ ' : ''}${record.eventType || record.type}`;
  const who = document.createElement('span');
  who.className = 'muted';
  who.textContent = ` · ${record.actor}${record.type === 'snapshot' ? ` · ${stateText(record.value)}` : ''}`;
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = 'Détails';
  const pre = document.createElement('pre');
  pre.textContent = JSON.stringify(record.type === 'snapshot' ? { value: record.value, context: record.context } : record.event, null, 2);
  details.append(summary, pre);
  li.append(time, type, who, details);
  return li;
}

function renderLog() {
  logEl.replaceChildren(...records.filter(matchesFilter).slice(-MAX_LOG).map(logItem));
}

function onRecord(record) {
  const conv = conversations.find((c) => c.systemId === record.conversation);
  if (conv && record.type === 'snapshot' && record.actor === conv.systemId) {
    conv.value = record.value;
    conv.status = record.status;
    renderActors();
    if (record.conversation === selected) highlight(record.value);
  }
  if (paused) return;
  records.push(record);
  if (records.length > MAX_LOG) records.shift();
  if (matchesFilter(record)) {
    logEl.append(logItem(record));
    while (logEl.children.length > MAX_LOG) logEl.firstChild.remove();
    logEl.scrollTop = logEl.scrollHeight; // newest at the bottom, kept in view
  }
}

let socket = null;
function connect() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  socket = new WebSocket(`${proto}//${location.host}/inspect/ws`);
  socket.addEventListener('open', () => { connectionEl.textContent = 'Connecté.'; });
  socket.addEventListener('close', () => {
    connectionEl.textContent = 'Déconnecté — nouvelle tentative dans 2 s.';
    setTimeout(connect, 2000);
  });
  socket.addEventListener('message', (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    if (msg.type === 'conversations') {
      conversations = msg.conversations;
      renderActors();
      if (!selected && conversations.length > 0) select(conversations[0].systemId);
      else if (selected && !conversations.some((c) => c.systemId === selected)) stateLine.textContent = `${selected} — terminé.`;
    } else if (msg.type === 'record') {
      onRecord(msg.record);
    } else if (msg.type === 'history' && msg.systemId === selected) {
      records.push(...msg.records);
      renderLog();
    }
  });
}

pauseBtn.addEventListener('click', () => {
  paused = !paused;
  pauseBtn.setAttribute('aria-pressed', String(paused));
  pauseBtn.textContent = paused ? 'Reprendre' : 'Pause';
});
$('zoom').addEventListener('click', (ev) => {
  const on = chartEl.classList.toggle('fit');
  ev.currentTarget.setAttribute('aria-pressed', String(on));
});
$('clear').addEventListener('click', () => { records.length = 0; renderLog(); });
filterInput.addEventListener('input', renderLog);
connect();
