// /inspect/journal/:id client: a recorded conversation scrubbed step by step. The slider (arrow
// keys) and the step list (buttons) choose step k; the chart shows the state reached at k, the
// transition taken drawn in orange, and the detail lists the event, the actions done and the actors
// started with their input. Below, per transition of the machine, how many recorded conversations
// took it and whether the model tests did. Everything received is rendered as text (textContent),
// except the chart SVG, which comes from this server's own /inspect/charts endpoint.

const $ = (id) => document.getElementById(id);
const id = $('journal-id').dataset.id;
const slider = $('step');
const posEl = $('step-pos');
const nowEl = $('step-now');
const moveEl = $('step-move');
const chartEl = $('chart');
const listEl = $('steps');
const detailEl = $('step-detail');
let steps = [];

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function activeIds(value, prefix) {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return [`${prefix}.${value}`];
  const ids = [];
  for (const [key, child] of Object.entries(value)) ids.push(`${prefix}.${key}`, ...activeIds(child, `${prefix}.${key}`));
  return ids;
}

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

const short = (v, n = 400) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s === undefined ? '' : s.length > n ? `${s.slice(0, n)}…` : s;
};

async function getJson(url) {
  const res = await fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error || `HTTP ${res.status}`);
  return body;
}

async function loadChart(machine) {
  const res = await fetch(`/inspect/charts/${encodeURIComponent(machine)}.svg`, { credentials: 'same-origin' });
  if (!res.ok) {
    chartEl.append(el('p', `Pas de statechart pour « ${machine} » dans le code d’aujourd’hui.`));
    return;
  }
  const doc = new DOMParser().parseFromString(await res.text(), 'image/svg+xml');
  if (doc.documentElement && doc.documentElement.nodeName === 'svg') {
    const node = document.importNode(doc.documentElement, true);
    node.setAttribute('role', 'group');
    for (const g of node.querySelectorAll('g[data-state-id]')) g.setAttribute('tabindex', '0');
    chartEl.append(node);
  }
}

function renderDetail(step) {
  const dl = el('dl', undefined, 'step-fields');
  const row = (k, v) => {
    dl.append(el('dt', k));
    const dd = el('dd');
    if (v instanceof Node) dd.append(v);
    else dd.textContent = v;
    dl.append(dd);
  };
  row('Étape', `#${step.seq}, +${Math.round(step.at)} ms`);
  row('Origine', step.from);
  row('Événement reçu', `${step.event.type} ${short(Object.fromEntries(Object.entries(step.event).filter(([k]) => k !== 'type')))}`);
  row('État atteint', `${statePath(step.state)} (${step.status})`);
  const actions = el('ul', undefined, 'plain-list');
  for (const a of step.actions) actions.append(el('li', a.params === undefined ? a.type : `${a.type} ${short(a.params)}`));
  row('Actions', step.actions.length ? actions : 'aucune');
  const invoked = el('ul', undefined, 'plain-list');
  for (const i of step.invoked) invoked.append(el('li', `${i.src} (id ${i.id})${i.input === undefined ? '' : ` entrée : ${short(i.input)}`}`));
  row('Acteurs démarrés', step.invoked.length ? invoked : 'aucun');
  detailEl.replaceChildren(dl);
}

function show(k, focusList) {
  if (k < 0 || k >= steps.length) return;
  const step = steps[k];
  slider.value = String(k);
  posEl.textContent = `${k} / ${steps.length - 1}`;
  slider.setAttribute('aria-valuetext', `Étape ${k} sur ${steps.length - 1} : ${step.event.type}, état ${statePath(step.state)}`);
  nowEl.textContent = `Étape ${k} — ${step.event.type} → ${statePath(step.state)}`;
  for (const b of listEl.querySelectorAll('button')) b.setAttribute('aria-pressed', String(Number(b.dataset.k) === k));
  if (focusList) listEl.querySelector(`button[data-k="${k}"]`)?.focus();
  renderDetail(step);
  const svg = chartEl.querySelector('svg');
  if (!svg) return;
  const root = svg.querySelector('g[data-state-id]');
  const rootId = root ? root.getAttribute('data-state-id') : '';
  const after = new Set([rootId, ...activeIds(step.state, rootId)]);
  for (const g of svg.querySelectorAll('g[data-state-id]')) g.classList.toggle('active', after.has(g.getAttribute('data-state-id')) && g !== root);
  scrollToActive();
  for (const e of svg.querySelectorAll('.last')) e.classList.remove('last');
  if (k === 0) {
    moveEl.textContent = 'Transition : départ de la conversation.';
    return;
  }
  const before = new Set([rootId, ...activeIds(steps[k - 1].state, rootId)]);
  const edges = [...svg.querySelectorAll('[data-event]')].filter((e) => e.getAttribute('data-event') === step.event.type && before.has(e.getAttribute('data-source')) && after.has(e.getAttribute('data-target')));
  for (const e of edges) e.classList.add('last');
  const name = (s) => s.split('.').slice(1).join('.') || s;
  const moves = [...new Set(edges.map((e) => `${name(e.getAttribute('data-source'))} → ${name(e.getAttribute('data-target'))}`))];
  moveEl.textContent = moves.length ? `Transition (en orange) : ${step.event.type}, ${moves.join(' ; ')}` : `Transition : ${step.event.type} sans changement d’état dessiné.`;
}

function renderSteps() {
  listEl.replaceChildren();
  steps.forEach((s, k) => {
    const li = el('li');
    const b = el('button');
    b.type = 'button';
    b.dataset.k = String(k);
    b.setAttribute('aria-pressed', 'false');
    b.append(el('span', `#${s.seq} +${Math.round(s.at)} ms`, 'ev-time'), el('span', s.event.type, 'ev-type'), el('span', ` → ${statePath(s.state)}`, 'ev-state'));
    b.addEventListener('click', () => show(k, false));
    b.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        show(Math.max(0, Math.min(steps.length - 1, k + (e.key === 'ArrowDown' ? 1 : -1))), true);
      }
    });
    li.append(b);
    listEl.append(li);
  });
}

function renderCoverage(cov) {
  const body = $('coverage').querySelector('tbody');
  body.replaceChildren();
  // Names relative to the chart's root, guards kept: `idle —ai.request [hasRoom]→ responding`.
  const prefix = new RegExp(`(^|[\\s,])${cov.machine.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.`, 'g');
  const rel = (s) => s.replace(prefix, '$1').replace('→ (stays)', '→ (reste)');
  for (const r of cov.transitions) {
    const tr = el('tr');
    if (r.flag) tr.className = `flag-${r.flag}`;
    tr.append(
      el('td', rel(r.transition)),
      el('td', String(r.taken)),
      el('td', r.tested === null ? 'inconnu' : r.tested ? 'oui' : 'non'),
      el('td', r.flag === 'untested' ? 'prise par le trafic, aucun test' : r.flag === 'untaken' ? 'testée, jamais prise' : ''),
    );
    body.append(tr);
  }
  $('cov-summary').textContent =
    `${cov.machine} : ${cov.conversations} conversation(s) enregistrée(s) ; ` +
    (cov.modelCoverage ? `${cov.takenUntested.length} transition(s) prise(s) sans test, ${cov.testedUntaken.length} testée(s) jamais prise(s).` : 'pas de couverture des tests de modèle ici (lancez npm run test:model).');
}

slider.addEventListener('input', () => show(Number(slider.value), false));

// A big chart (T2's is ~4,700 px wide) opens fitted to the box; "Taille réelle" shows it at 100 %
// and scrolls to the active state.
const fitBtn = $('chart-fit');
fitBtn.addEventListener('click', () => {
  const real = fitBtn.getAttribute('aria-pressed') !== 'true';
  fitBtn.setAttribute('aria-pressed', String(real));
  chartEl.classList.toggle('real-size', real);
  scrollToActive();
});

function scrollToActive() {
  const g = chartEl.querySelector('g.state-atomic.active, g.state-final.active');
  if (!chartEl.classList.contains('real-size') || !g || typeof g.getBBox !== 'function') return;
  const box = g.getBBox();
  chartEl.scrollLeft = Math.max(0, box.x - chartEl.clientWidth / 3);
  chartEl.scrollTop = Math.max(0, box.y - chartEl.clientHeight / 3);
}

async function main() {
  let data;
  try {
    data = await getJson(`/api/inspect/journal/${encodeURIComponent(id)}`);
  } catch (e) {
    $('journal-meta').textContent = `Journal introuvable : ${e.message}`;
    return;
  }
  const c = data.conversation;
  $('journal-meta').textContent = `${c.surface} · machine ${c.machine} · ${c.steps} étapes · commencée ${c.startedAt}${c.endedAt ? `, terminée ${c.endedAt}` : ', en cours'}`;
  steps = data.steps;
  slider.max = String(Math.max(0, steps.length - 1));
  slider.disabled = steps.length === 0;
  renderSteps();
  await loadChart(c.machine);
  if (steps.length) show(0, false);
  try {
    renderCoverage(await getJson(`/api/inspect/journal/coverage?machine=${encodeURIComponent(c.machine)}`));
  } catch (e) {
    $('cov-summary').textContent = `Couverture indisponible : ${e.message}`;
  }
}

main();
