// /inspect: the recorded conversations (the journal), each a link to its step-by-step view.
const list = document.getElementById('recorded');
const empty = document.getElementById('recorded-empty');

async function load() {
  const res = await fetch('/api/inspect/journal?limit=50', { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (!res.ok) {
    empty.textContent = `Journal indisponible (HTTP ${res.status}).`;
    return;
  }
  const { conversations } = await res.json();
  list.replaceChildren();
  for (const c of conversations) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `/inspect/journal/${encodeURIComponent(c.id)}`;
    a.textContent = `${c.machine} · ${c.id}`;
    const meta = document.createElement('span');
    meta.className = 'actor-kind';
    meta.textContent = `${c.surface}, ${c.steps} étapes, ${c.startedAt.replace('T', ' ').slice(0, 19)}${c.endedAt ? '' : ' (en cours)'}`;
    li.append(a, meta);
    list.append(li);
  }
  empty.hidden = conversations.length > 0;
  empty.textContent = 'Aucune conversation enregistrée (JOURNAL=on les enregistre).';
}

load();
