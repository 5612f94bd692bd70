// /docs viewer enhancements: the chat as an off-canvas panel, and document links (tree and
// answer sources) loaded into the viewer without a page reload (fetch ?format=json +
// history.pushState), focus moved to the cited section. Every link stays a plain link without JS.

import { drawDiagrams } from './diagrams.js';

document.documentElement.classList.add('js');

const view = document.getElementById('doc_view');
const panel = document.getElementById('chat_panel');
const closeButton = document.getElementById('chat_close');
const toggleLink = document.getElementById('chat_toggle');
const docField = document.querySelector('#chat_panel input[name="doc"]');
const treeList = document.getElementById('docs_tree_list');
const narrow = window.matchMedia('(max-width: 51.99rem)');

// On a phone the list of files folds away: the document comes first.
if (treeList && narrow.matches) treeList.open = false;

// ---- Off-canvas chat panel --------------------------------------------------------------------

let toggle = toggleLink;
if (toggleLink && panel) {
  // A real <button> (Enter and Space, aria-expanded) replaces the no-JS anchor.
  toggle = document.createElement('button');
  toggle.type = 'button';
  toggle.id = toggleLink.id;
  toggle.className = toggleLink.className.replace(/\bbutton\b/, '').trim();
  toggle.textContent = toggleLink.textContent;
  toggle.setAttribute('aria-controls', 'chat_panel');
  toggleLink.replaceWith(toggle);
}

function setPanel(open, focusInside) {
  if (!panel) return;
  panel.hidden = !open;
  document.body.classList.toggle('chat-open', open);
  toggle?.setAttribute('aria-expanded', String(open));
  if (open && focusInside) panel.querySelector('textarea')?.focus();
}

if (panel) {
  closeButton.hidden = false;
  const startOpen = panel.dataset.open === 'true' || location.hash === '#chat_panel';
  setPanel(startOpen, false);
  toggle?.addEventListener('click', () => setPanel(panel.hidden, true));
  closeButton.addEventListener('click', () => {
    setPanel(false);
    toggle?.focus();
  });
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      setPanel(false);
      toggle?.focus();
    }
  });
}

// ---- Documents in the viewer without reload ---------------------------------------------------

function focusTarget(hash) {
  let target = null;
  if (hash && hash.length > 1) {
    try {
      target = document.getElementById(decodeURIComponent(hash.slice(1)));
    } catch {
      target = null;
    }
  }
  if (!target || !view?.contains(target)) target = view?.querySelector('h1') ?? view;
  if (!target) return;
  for (const old of view.querySelectorAll('.cited')) old.classList.remove('cited');
  if (hash && target !== view) target.classList.add('cited');
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: 'start', behavior: 'instant' });
}

/** Scrolls the (sticky, scrollable) tree so the current document shows, without moving the page. */
function revealCurrent() {
  const tree = document.getElementById('docs_tree');
  const current = tree?.querySelector('a[aria-current="page"]');
  if (!tree || !current || tree.scrollHeight <= tree.clientHeight) return;
  const offset = current.getBoundingClientRect().top - tree.getBoundingClientRect().top + tree.scrollTop;
  tree.scrollTop = Math.max(0, offset - tree.clientHeight / 3);
}

function markCurrent(path) {
  for (const a of document.querySelectorAll('#docs_tree a[data-doc-link]')) {
    const own = new URL(a.href).pathname;
    if (own === path) {
      a.setAttribute('aria-current', 'page');
      // The current document's folder opens, as it does when the server draws the page.
      for (let d = a.closest('details.dir-group'); d; d = d.parentElement?.closest('details.dir-group')) d.open = true;
    } else a.removeAttribute('aria-current');
  }
  document.querySelector('#docs_tree a[href="/docs"]')?.removeAttribute('aria-current');
  revealCurrent();
}

async function loadDocument(url, push) {
  const res = await fetch(`${url.pathname}?format=json`, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const doc = await res.json();
  // Server-rendered and sanitised (marked + sanitize-html); the CSP blocks inline scripts too.
  view.innerHTML = doc.html;
  view.dataset.path = doc.path;
  if (doc.lang) view.lang = doc.lang;
  if (docField) docField.value = doc.path;
  document.title = `${doc.title} — palabre`;
  markCurrent(url.pathname);
  if (push) history.pushState({ docs: true }, '', url.pathname + url.hash);
  focusTarget(url.hash);
  drawDiagrams(view);
}

function isDocLink(a) {
  if (!a || !view) return false;
  if (!a.matches('a.source-link, #docs_tree a[data-doc-link], #doc_view a[href^="/docs/"]')) return false;
  const url = new URL(a.href, location.href);
  return url.origin === location.origin && url.pathname.startsWith('/docs/');
}

document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const a = event.target instanceof Element ? event.target.closest('a') : null;
  if (!isDocLink(a)) return;
  const url = new URL(a.href, location.href);
  // On a phone, following a source or a file closes what covers the document.
  if (narrow.matches) {
    if (a.matches('a.source-link') && panel && !panel.hidden) setPanel(false);
    if (treeList && a.closest('#docs_tree')) treeList.open = false;
  }
  if (url.pathname === location.pathname && url.hash) {
    // Same document: only the section changes.
    event.preventDefault();
    history.pushState({ docs: true }, '', url.pathname + url.hash);
    focusTarget(url.hash);
    return;
  }
  event.preventDefault();
  loadDocument(url, true).catch(() => {
    location.href = a.href; // fall back to a normal navigation
  });
});

/** Is this URL the document on screen (the same path as view.dataset.path)? */
function showing(url) {
  const path = view?.dataset.path;
  return path !== undefined && url.pathname === `/docs/${path.split('/').map(encodeURIComponent).join('/')}`;
}

window.addEventListener('popstate', () => {
  if (!view || !location.pathname.startsWith('/docs')) return;
  // A fragment of the page itself (the skip link's #page_main, #chat_panel) is not a document:
  // the browser moves focus, nothing is fetched. A section of the document on screen is focused.
  if (showing(location)) {
    let target = null;
    try {
      target = location.hash.length > 1 ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    } catch {
      target = null;
    }
    if (target && view.contains(target)) focusTarget(location.hash);
    return;
  }
  if (location.pathname === '/docs' || location.pathname === '/docs/') {
    location.reload();
    return;
  }
  loadDocument(new URL(location.href), false).catch(() => location.reload());
});

// A page opened at /docs/<path>#<section> (a source link followed without JS, or a new tab):
// focus the cited section, not only scroll to it.
revealCurrent();
if (view && location.hash && location.hash !== '#chat_panel') focusTarget(location.hash);
drawDiagrams(view);
