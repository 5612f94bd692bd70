// /inspect client: every conversation (live, then ended ones kept INSPECT_RETAIN_S, greyed), its
// statechart with the current state drawn and written as a path and the transition last taken
// drawn too, its context as a tree, and one event log across conversations, filterable by machine,
// where an event and the state it led to are one entry. Each state's description (the chart's
// `<title>` of its group) is written for the current state and for the state hovered or focused. Big charts open fitted to the box. Everything received is rendered as text
// (textContent), except the chart SVG, which comes from this server's own /inspect/charts endpoint.

const $ = (id) => document.getElementById(id);
const actorsEl = $('actors');
const emptyEl = $('actors-empty');
const chartEl = $('chart');
const stateLine = $('chart-state');
const descLine = $('chart-desc');
const hoverLine = $('chart-hover');
const contextEl = $('context');
const logEl = $('log');
const pauseBtn = $('pause');
const filterInput = $('filter');
const scopeSelect = $('scope');
const machineSelect = $('machine');
const connectionEl = $('connection');

const MAX_LOG = 1000;
let conversations = [];
let selected = null;
let chartKind = null;
let paused = false;
let zoom = 1;
/** The chart follows the box's size (fit to view) until the user zooms. */
let fitted = true;
const MIN_ZOOM = 0.05;
const MAX_ZOOM = 3;
/** Records by seq: the live stream and the histories asked for merge without duplicates. */
const records = new Map();

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

/** The active leaves as paths: `turn.responding · debounce.quiet`. */
function statePath(value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  const leaves = [];
  const walk = (v, path) => {
    if (typeof v === 'string') leaves.push([...path, v].join('.'));
    else if (v && typeof v === 'object' && Object.keys(v).length) for (const [k, c] of Object.entries(v)) walk(c, [...path, k]);
    else leaves.push(path.join('.'));
  };
  walk(value, []);
  return leaves.join(' · ');
}

const byId = (id) => conversations.find((c) => c.systemId === id);
const labelOf = (id) => byId(id)?.label || id;

function ago(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

function renderActors() {
  // Re-rendering must not take the keyboard focus away from the actor list.
  const focused = document.activeElement && actorsEl.contains(document.activeElement) ? document.activeElement.dataset.systemId : null;
  actorsEl.replaceChildren();
  emptyEl.hidden = conversations.length > 0;
  for (const c of conversations) {
    const li = document.createElement('li');
    const btn = document.createElement('button');
    btn.type = 'button';
    btn.dataset.systemId = c.systemId;
    btn.dataset.kind = c.kind;
    if (c.endedAt) btn.classList.add('ended');
    btn.setAttribute('aria-pressed', String(c.systemId === selected));
    const name = document.createElement('span');
    name.className = 'actor-name';
    name.textContent = c.label || c.systemId;
    const meta = document.createElement('span');
    meta.className = 'actor-kind';
    meta.textContent = c.endedAt ? `terminée il y a ${ago(Date.now() - c.endedAt)}` : 'en cours';
    const state = document.createElement('span');
    state.className = 'actor-state';
    state.textContent = `${c.endedAt ? 'état final : ' : ''}${statePath(c.value)}`;
    btn.append(name, meta, state);
    btn.addEventListener('click', () => select(c.systemId));
    li.append(btn);
    actorsEl.append(li);
    if (focused === c.systemId) btn.focus();
  }
  // The machine filter offers every kind seen.
  const kinds = new Set([...conversations.map((c) => c.kind), ...[...records.values()].map((r) => r.kind)]);
  const have = new Set([...machineSelect.options].map((o) => o.value));
  for (const k of [...kinds].sort()) {
    if (have.has(k)) continue;
    const o = document.createElement('option');
    o.value = k;
    o.textContent = k;
    machineSelect.append(o);
  }
}

function applyZoom() {
  const svg = chartEl.querySelector('svg');
  $('zoom-level').textContent = `${Math.round(zoom * 100)} %`;
  if (!svg) return;
  // The natural size comes from the viewBox; width/height are attributes, not inline styles (CSP).
  const vb = svg.viewBox && svg.viewBox.baseVal;
  const w = vb && vb.width ? vb.width : Number(svg.dataset.w || svg.getAttribute('width')) || 800;
  const h = vb && vb.height ? vb.height : Number(svg.dataset.h || svg.getAttribute('height')) || 600;
  svg.setAttribute('width', String(Math.round(w * zoom)));
  svg.setAttribute('height', String(Math.round(h * zoom)));
}

/** The chart's natural size (its viewBox). */
function naturalSize(svg) {
  const vb = svg.viewBox && svg.viewBox.baseVal;
  return {
    w: vb && vb.width ? vb.width : Number(svg.dataset.w) || 800,
    h: vb && vb.height ? vb.height : Number(svg.dataset.h) || 600,
  };
}

/** Fit to view: the whole chart in the box (never enlarged past its natural size). */
function fitZoom() {
  const svg = chartEl.querySelector('svg');
  if (!svg) return;
  const { w, h } = naturalSize(svg);
  const boxW = chartEl.clientWidth - 2;
  const boxH = Math.max(160, window.innerHeight * 0.75 - 2);
  zoom = Math.max(MIN_ZOOM, Math.min(1, boxW / w, boxH / h));
  fitted = true;
  applyZoom();
  chartEl.scrollLeft = 0;
  chartEl.scrollTop = 0;
}

function setZoom(z, focus) {
  const before = zoom;
  fitted = false;
  zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, Math.round(z * 100) / 100));
  const fx = focus ? focus.x : chartEl.clientWidth / 2;
  const fy = focus ? focus.y : chartEl.clientHeight / 2;
  const sx = (chartEl.scrollLeft + fx) / before;
  const sy = (chartEl.scrollTop + fy) / before;
  applyZoom();
  // Keep the point under the cursor (or the centre) where it was.
  chartEl.scrollLeft = sx * zoom - fx;
  chartEl.scrollTop = sy * zoom - fy;
}

/** A state's description as its chart group carries it: `key: description` (empty when it has none). */
function stateTitle(g) {
  const t = g.querySelector(':scope > title');
  return t ? t.textContent : '';
}

async function loadChart(kind) {
  if (chartKind === kind) return;
  chartKind = kind;
  chartEl.replaceChildren();
  const res = await fetch(`/inspect/charts/${encodeURIComponent(kind)}.svg`, { credentials: 'same-origin' });
  if (!res.ok) {
    if (chartKind !== kind) return;
    const p = document.createElement('p');
    p.textContent = `Pas de statechart enregistré pour « ${kind} ».`;
    chartEl.append(p);
    return;
  }
  const text = await res.text();
  if (chartKind !== kind) return; // another conversation was selected meanwhile
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const svg = doc.documentElement;
  if (svg && svg.nodeName === 'svg') {
    const node = document.importNode(svg, true);
    node.dataset.w = node.getAttribute('width') || '';
    node.dataset.h = node.getAttribute('height') || '';
    // The states are reachable by keyboard to read their description; their container is then
    // a group (an image's parts would be hidden from assistive technologies).
    node.setAttribute('role', 'group');
    for (const g of node.querySelectorAll('g[data-state-id]')) g.setAttribute('tabindex', '0');
    chartEl.append(node);
    // A new chart opens fitted when it is larger than the box (the T2 chart is ~4,700 px wide).
    if (fitted) fitZoom();
    else applyZoom();
  }
}

function contextTree(value, key) {
  if (value === null || typeof value !== 'object') {
    const li = document.createElement('li');
    const k = document.createElement('span');
    k.className = 'ctx-key';
    k.textContent = key === undefined ? '' : `${key} : `;
    const v = document.createElement('span');
    v.className = `ctx-value ctx-${value === null ? 'null' : typeof value}`;
    v.textContent = typeof value === 'string' ? JSON.stringify(value.length > 400 ? `${value.slice(0, 400)}…` : value) : String(value);
    li.append(k, v);
    return li;
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const li = document.createElement('li');
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = `${key === undefined ? 'contexte' : key} ${Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`}`;
  details.append(summary);
  // The first level is open; deeper ones open on demand.
  if (key === undefined) details.open = true;
  const ul = document.createElement('ul');
  for (const [k, v] of entries) ul.append(contextTree(v, k));
  details.append(ul);
  li.append(details);
  return li;
}

function renderContext(conv) {
  contextEl.replaceChildren();
  if (!conv || conv.context === undefined) {
    const p = document.createElement('p');
    p.className = 'muted';
    p.textContent = conv ? 'Contexte vide.' : 'Aucune conversation sélectionnée.';
    contextEl.append(p);
    return;
  }
  const ul = document.createElement('ul');
  ul.className = 'ctx-root';
  ul.append(contextTree(conv.context));
  contextEl.append(ul);
}

function highlight(conv) {
  const value = conv.value;
  const svg = chartEl.querySelector('svg');
  const path = statePath(value);
  stateLine.textContent = conv.endedAt ? `${conv.label} — terminée ; état final : ${path}` : `${conv.label} — état : ${path}`;
  if (!svg) {
    descLine.textContent = 'Ce que fait l’état : —';
    return;
  }
  const root = svg.querySelector('g[data-state-id]');
  const rootId = root ? root.getAttribute('data-state-id') : '';
  const ids = new Set([rootId, ...activeIds(value, rootId)]);
  for (const g of svg.querySelectorAll('g[data-state-id]')) {
    g.classList.toggle('active', ids.has(g.getAttribute('data-state-id')) && g !== root);
  }
  svg.classList.toggle('ended', Boolean(conv.endedAt));
  // One description per active leaf: a parallel state has one per region.
  const leaves = [...svg.querySelectorAll('g.state-atomic.active, g.state-final.active')];
  const described = (leaves.length > 0 ? leaves : root ? [root] : []).map(stateTitle).filter(Boolean);
  descLine.textContent = `Ce que fait l’état : ${described.length > 0 ? described.join(' · ') : '—'}`;
  markLastTransition(conv, svg);
  // Bring the current (innermost) state into view inside the chart's scroll box (fitted: all is).
  const current = svg.querySelector('g.state-atomic.active, g.state-final.active');
  if (!fitted && current && typeof current.getBBox === 'function') {
    const box = current.getBBox();
    chartEl.scrollLeft = Math.max(0, box.x * zoom - chartEl.clientWidth / 3);
    chartEl.scrollTop = Math.max(0, box.y * zoom - chartEl.clientHeight / 3);
  }
}

/**
 * The transition this conversation took last: walking its own snapshots from the newest, the first
 * whose event matches a drawn edge leaving a state active before it and entering one active after
 * it. Events that changed nothing drawn (no edge) are skipped.
 */
function lastTransition(conv, svg) {
  const snaps = sorted().filter((r) => r.type === 'snapshot' && r.conversation === conv.systemId && r.actor === conv.systemId);
  const root = svg.querySelector('g[data-state-id]');
  const rootId = root ? root.getAttribute('data-state-id') : '';
  for (let i = snaps.length - 1; i > 0; i--) {
    const cur = snaps[i];
    const before = new Set([rootId, ...activeIds(snaps[i - 1].value, rootId)]);
    const after = new Set([rootId, ...activeIds(cur.value, rootId)]);
    const edges = [...svg.querySelectorAll('[data-event]')].filter(
      (e) => e.getAttribute('data-event') === cur.eventType && before.has(e.getAttribute('data-source')) && after.has(e.getAttribute('data-target')),
    );
    if (edges.length > 0) return { record: cur, edges };
  }
  return null;
}

function markLastTransition(conv, svg) {
  for (const e of svg.querySelectorAll('.last')) e.classList.remove('last');
  const last = lastTransition(conv, svg);
  const line = $('chart-last');
  if (!last) {
    line.textContent = 'Dernière transition : aucune pour l’instant.';
    return;
  }
  for (const e of last.edges) e.classList.add('last');
  // Each edge taken (one per parallel region), named by its states relative to the chart's root.
  const name = (id) => id.split('.').slice(1).join('.') || id;
  const moves = [...new Set(last.edges.map((e) => `${name(e.getAttribute('data-source'))} → ${name(e.getAttribute('data-target'))}`))];
  line.textContent = `Dernière transition (en orange) : ${last.record.eventType}, ${moves.join(' ; ')}`;
}

async function select(systemId) {
  selected = systemId;
  const conv = byId(systemId);
  renderActors();
  if (!conv) return;
  await loadChart(conv.kind);
  // A later click wins: a chart that loaded slowly must not draw over the newer selection.
  if (selected !== systemId) return;
  highlight(conv);
  renderContext(conv);
  // The whole log kept for it (all of it for an ended conversation), merged into the global log.
  socket?.send(JSON.stringify({ type: 'history', systemId }));
  if (scopeSelect.value === 'selected') renderLog();
}

function matchesFilter(record) {
  if (scopeSelect.value === 'selected' && record.conversation !== selected) return false;
  if (machineSelect.value && record.kind !== machineSelect.value) return false;
  const f = filterInput.value.trim().toLowerCase();
  if (!f) return true;
  return (record.eventType || '').toLowerCase().includes(f);
}

/**
 * One entry per event an actor processed: the event record and the snapshot it produced (same
 * actor, same event type, the snapshot right after) are one entry, with whether the state changed.
 */
function groupRecords(list) {
  const groups = [];
  const open = new Map(); // actor → its latest event entry still waiting for its snapshot
  const lastValue = new Map(); // actor → its state value after its previous snapshot
  for (const r of list) {
    if (r.type === 'event') {
      const g = { event: r, snapshot: null };
      groups.push(g);
      open.set(`${r.conversation}|${r.actor}`, g);
    } else if (r.type === 'snapshot') {
      const key = `${r.conversation}|${r.actor}`;
      const g = open.get(key);
      const before = lastValue.get(key);
      lastValue.set(key, JSON.stringify(r.value));
      const changed = before === undefined || before !== JSON.stringify(r.value);
      if (g && g.event.eventType === r.eventType && !g.snapshot) {
        g.snapshot = r;
        g.changed = changed;
        open.delete(key);
      } else groups.push({ event: null, snapshot: r, changed });
    } else groups.push({ actor: r });
  }
  return groups;
}

function logItem(g) {
  const head = g.event || g.snapshot || g.actor;
  const li = document.createElement('li');
  li.dataset.eventType = head.eventType || '';
  li.dataset.kind = head.kind || '';
  const time = document.createElement('span');
  time.className = 'ev-time';
  time.textContent = new Date(head.at).toLocaleTimeString('fr-FR', { hour12: false });
  const type = document.createElement('span');
  type.className = 'ev-type';
  type.textContent = g.actor ? '+ acteur démarré' : head.eventType || head.type;
  const who = document.createElement('span');
  who.className = 'muted';
  const inner = head.actor !== head.conversation ? ` (${head.actor})` : '';
  who.textContent = ` · ${labelOf(head.conversation)}${inner}`;
  li.append(time, type, who);
  // Callback and promise actors have no state value: nothing to say about their state.
  if (g.snapshot && g.snapshot.value !== undefined) {
    const to = document.createElement('span');
    to.className = g.changed ? 'ev-state' : 'ev-state muted';
    to.textContent = g.changed ? ` → ${statePath(g.snapshot.value)}` : ' · état inchangé';
    li.append(to);
    li.dataset.changed = String(Boolean(g.changed));
  }
  if (!g.actor) {
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = 'Détails';
    const pre = document.createElement('pre');
    pre.textContent = JSON.stringify({ ...(g.event ? { event: g.event.event } : {}), ...(g.snapshot ? { value: g.snapshot.value, context: g.snapshot.context } : {}) }, null, 2);
    details.append(summary, pre);
    li.append(details);
  }
  return li;
}

function sorted() {
  return [...records.values()].sort((a, b) => a.seq - b.seq);
}

function renderLog() {
  logEl.replaceChildren(...groupRecords(sorted().filter(matchesFilter)).slice(-MAX_LOG).map(logItem));
  logEl.scrollTop = logEl.scrollHeight;
}

// Records arrive in bursts: the log is redrawn once per frame, not once per record.
let logFrame = 0;
function scheduleLog() {
  if (logFrame) return;
  logFrame = requestAnimationFrame(() => {
    logFrame = 0;
    renderLog();
  });
}

function remember(record) {
  records.set(record.seq, record);
  if (records.size > MAX_LOG) records.delete(records.keys().next().value);
}

function onRecord(record) {
  if (!paused) remember(record);
  const conv = byId(record.conversation);
  if (conv && record.type === 'snapshot' && record.actor === conv.systemId) {
    conv.value = record.value;
    conv.status = record.status;
    conv.context = record.context;
    renderActors();
    if (record.conversation === selected) {
      highlight(conv);
      renderContext(conv);
    }
  }
  if (paused) return;
  if (matchesFilter(record)) scheduleLog(); // newest at the bottom, kept in view
}

let socket = null;
function connect() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  socket = new WebSocket(`${proto}//${location.host}/inspect/ws`);
  socket.addEventListener('open', () => {
    connectionEl.textContent = 'Connecté.';
  });
  socket.addEventListener('close', () => {
    connectionEl.textContent = 'Déconnecté — nouvelle tentative dans 2 s.';
    setTimeout(connect, 2000);
  });
  socket.addEventListener('message', (ev) => {
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      return;
    }
    if (msg.type === 'conversations') {
      conversations = msg.conversations;
      renderActors();
      const sel = selected && byId(selected);
      if (!selected && conversations.length > 0) void select(conversations[0].systemId);
      else if (sel) {
        highlight(sel);
      } else if (selected) stateLine.textContent = `${selected} — n’est plus conservée.`;
    } else if (msg.type === 'record') {
      onRecord(msg.record);
    } else if (msg.type === 'history') {
      for (const r of msg.records) remember(r);
      renderLog();
      const sel = selected && byId(selected);
      if (sel) highlight(sel);
    }
  });
}

pauseBtn.addEventListener('click', () => {
  paused = !paused;
  pauseBtn.setAttribute('aria-pressed', String(paused));
  pauseBtn.textContent = paused ? 'Reprendre' : 'Pause';
});
$('zoom-in').addEventListener('click', () => setZoom(zoom * 1.25));
$('zoom-out').addEventListener('click', () => setZoom(zoom / 1.25));
$('zoom-reset').addEventListener('click', () => setZoom(1));
$('zoom-fit').addEventListener('click', fitZoom);
// Fitted charts follow the window (a phone turned, a window resized).
window.addEventListener('resize', () => {
  if (fitted) fitZoom();
});
chartEl.addEventListener(
  'wheel',
  (e) => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    const r = chartEl.getBoundingClientRect();
    setZoom(zoom * (e.deltaY < 0 ? 1.1 : 1 / 1.1), { x: e.clientX - r.left, y: e.clientY - r.top });
  },
  { passive: false },
);
// Pan: drag the chart with the mouse (or a finger); the box scrolls.
let drag = null;
chartEl.addEventListener('pointerdown', (e) => {
  if (e.button !== 0) return;
  drag = { x: e.clientX, y: e.clientY, left: chartEl.scrollLeft, top: chartEl.scrollTop };
  chartEl.setPointerCapture(e.pointerId);
  chartEl.classList.add('panning');
});
chartEl.addEventListener('pointermove', (e) => {
  if (!drag) return;
  chartEl.scrollLeft = drag.left - (e.clientX - drag.x);
  chartEl.scrollTop = drag.top - (e.clientY - drag.y);
});
const endDrag = () => {
  drag = null;
  chartEl.classList.remove('panning');
};
const showPointed = (e) => {
  const g = e.target instanceof Element ? e.target.closest('g[data-state-id]') : null;
  if (!g || !chartEl.contains(g)) return;
  hoverLine.textContent = `État pointé : ${stateTitle(g) || `${g.getAttribute('data-state-id')} (sans description)`}`;
};
chartEl.addEventListener('mouseover', showPointed);
chartEl.addEventListener('focusin', showPointed);
chartEl.addEventListener('pointerup', endDrag);
chartEl.addEventListener('pointercancel', endDrag);
chartEl.addEventListener('keydown', (e) => {
  if (e.key === '+' || e.key === '=') setZoom(zoom * 1.25);
  else if (e.key === '-') setZoom(zoom / 1.25);
  else if (e.key === '0') setZoom(1);
  else if (e.key === 'f' || e.key === 'F') fitZoom();
});
$('clear').addEventListener('click', () => {
  records.clear();
  renderLog();
});
filterInput.addEventListener('input', renderLog);
scopeSelect.addEventListener('change', renderLog);
machineSelect.addEventListener('change', renderLog);
// "terminée il y a …" stays true.
setInterval(() => {
  if (conversations.some((c) => c.endedAt)) renderActors();
}, 5000);
connect();
