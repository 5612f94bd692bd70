// Who the candidate is, for the T2 pages. The token comes, in this order, from the host platform
// (a header on the page request, handed over as data-token), `?token=` or `#token=` (removed from
// the address bar at once), the browser's storage, or — in development only — the
// « Se connecter en mode développement » button. The claims are decoded here only to say who is
// signed in; the server verifies every use.
//
// Storage: a token with an expiry (`exp`) is kept in localStorage, so « Mes séances » opened in a
// new tab is signed in too, until that expiry (an expired one is dropped when read); one without
// `exp` stays in this tab's sessionStorage, since nothing says how long it may live. Not an
// httpOnly cookie: the pages send the token themselves (Authorization header, the WebSocket), and
// a cookie sent with every request would bring CSRF to routes that have none today.
const KEY = 'palabre.token';
const $ = (id) => document.getElementById(id);

const PLAN_LABELS = { premium: 'Premium', free: 'Gratuite' };

/** The payload of a JWT, or null (never trusted: display only). */
export function claimsOf(token) {
  try {
    const part = token.split('.')[1];
    const bin = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0))));
  } catch {
    return null;
  }
}

function usable(token) {
  const c = token && claimsOf(token);
  if (!c) return false;
  return !(typeof c.exp === 'number' && c.exp * 1000 < Date.now());
}

export function currentToken() {
  for (const storage of [sessionStorage, localStorage]) {
    const t = storage.getItem(KEY) || '';
    if (usable(t)) return t;
    if (t) storage.removeItem(KEY); // expired or unreadable: never kept past its end
  }
  return '';
}

function store(token) {
  sessionStorage.removeItem(KEY);
  localStorage.removeItem(KEY);
  if (!token) return;
  const c = claimsOf(token);
  if (c && typeof c.exp === 'number') localStorage.setItem(KEY, token);
  else sessionStorage.setItem(KEY, token);
}

/** Picks up a token handed over by the host, then wires the forms. `onChange(token)` on every change. */
export function setupSignin({ onChange = () => {} } = {}) {
  const section = $('t2-signin');
  if (!section) return { token: currentToken, refresh() {}, clear() {} };
  const url = new URL(location.href);
  const hash = new URLSearchParams(location.hash.slice(1));
  const handed = section.dataset.token || url.searchParams.get('token') || hash.get('token');
  if (handed) {
    store(handed);
    // The token never stays in the address bar (history, screenshots, shared links).
    url.searchParams.delete('token');
    history.replaceState(null, '', url.pathname + (url.search === '?' ? '' : url.search));
    delete section.dataset.token;
  }

  const render = () => {
    const token = currentToken();
    const c = token ? claimsOf(token) : null;
    $('t2-signin-forms').hidden = Boolean(token);
    $('t2-signout').hidden = !token;
    if (c) {
      const until = typeof c.exp === 'number' ? `, jusqu’à ${new Date(c.exp * 1000).toLocaleTimeString('fr-FR', { hour: '2-digit', minute: '2-digit' })}` : '';
      $('t2-signin-status').textContent = `Connecté : candidat ${c.sub}, offre ${PLAN_LABELS[c.plan] || c.plan}${until}.`;
    } else {
      $('t2-signin-status').textContent = section.dataset.dev === 'true' ? 'Vous n’êtes pas connecté.' : 'Vous n’êtes pas connecté : ouvrez cette page depuis votre plateforme.';
    }
    document.body.dataset.t2Signedin = token ? 'true' : 'false';
    onChange(token);
  };

  const dev = $('t2-dev-form');
  if (dev) {
    dev.addEventListener('submit', async (e) => {
      e.preventDefault();
      const err = $('t2-dev-error');
      err.hidden = true;
      const button = $('t2-dev-signin');
      button.disabled = true;
      try {
        const res = await fetch('/api/t2/dev/token', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ plan: $('t2-dev-plan').value, sub: $('t2-dev-sub').value.trim() || 'dev-candidat' }),
        });
        const body = await res.json().catch(() => ({}));
        if (!res.ok || !body.token) throw new Error(body.message || `le serveur a répondu ${res.status}`);
        store(body.token);
        render();
        $('t2-signin-status').focus();
      } catch (ex) {
        err.textContent = `Connexion impossible : ${ex.message}`;
        err.hidden = false;
      } finally {
        button.disabled = false;
      }
    });
  }
  $('t2-token-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const t = $('t2-token').value.trim();
    $('t2-token').value = '';
    if (!usable(t)) {
      $('t2-signin-status').textContent = 'Ce jeton n’est pas lisible ou a expiré : demandez-en un nouveau à votre plateforme.';
      return;
    }
    store(t);
    render();
  });
  $('t2-signout').addEventListener('click', () => {
    store('');
    render();
    // The button just disappeared: keep the keyboard on the sign-in section.
    $('t2-signin-status').focus();
  });
  $('t2-signin-status').setAttribute('tabindex', '-1');
  // Signed in or out in another tab: this one follows.
  window.addEventListener('storage', (e) => {
    if (e.key === KEY || e.key === null) render();
  });
  render();
  return {
    token: currentToken,
    refresh: render,
    /** The server refused the token (4001): forget it, so the sign-in forms come back. */
    clear() {
      store('');
      render();
    },
  };
}
