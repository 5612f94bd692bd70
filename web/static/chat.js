// Progressive enhancement of the docs chat forms (form[data-chat]) on /assistant and /docs.
// Without this file the forms post normally and the server returns the whole page. With it:
// fetch + SSE streaming into the aria-live region, aria-busy while the answer streams, and one
// final replacement by the server's sanitised HTML, so screen readers announce the answer once.
// Streamed text is only ever set with textContent; the final HTML comes from our own server,
// already sanitised, and the CSP forbids inline scripts anyway.

document.documentElement.classList.add('js');

/** Reads a text/event-stream body and calls onEvent(name, data) per event. */
async function readSse(body, onEvent) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let sep;
    while ((sep = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, sep);
      buffer = buffer.slice(sep + 2);
      let name = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) name = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trim();
      }
      try {
        onEvent(name, data ? JSON.parse(data) : null);
      } catch {
        // A malformed event is skipped; the final `done` still arrives.
      }
    }
  }
}

function earlierContainer(region) {
  const thread = region.parentElement;
  let earlier = thread.querySelector(':scope > .earlier');
  if (!earlier) {
    earlier = document.createElement('div');
    earlier.className = 'earlier';
    thread.insertBefore(earlier, region);
  }
  return earlier;
}

/** A "copy" button on each answered exchange (plain text of the answer, sources excluded). */
function addCopyButtons(root, status) {
  for (const article of root.querySelectorAll('article.answer[data-state="answered"]')) {
    if (article.querySelector('button.copy')) continue;
    const text = article.querySelector('.answer-text');
    if (!text) continue;
    const copy = document.createElement('button');
    copy.type = 'button';
    copy.className = 'secondary copy';
    copy.textContent = 'Copier la réponse';
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(text.innerText.trim());
        if (status) status.textContent = 'Réponse copiée.';
      } catch {
        if (status) status.textContent = 'La copie a été refusée par le navigateur : sélectionnez le texte.';
      }
    });
    // After the text, before the sources: Shift+Tab from the form still reaches the sources first.
    text.after(copy);
  }
}

function enhance(form) {
  const region = document.getElementById(form.dataset.answer);
  const textarea = form.querySelector('textarea[name="question"]');
  const status = form.querySelector('.chat-status');
  const button = form.querySelector('button[type="submit"]');
  if (!region || !textarea) return;
  let busy = false;
  let controller = null;

  // Enter sends, Shift+Enter adds a line (not while an input method composes a word).
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  // Stop, shown while an answer streams.
  const stop = document.createElement('button');
  stop.type = 'button';
  stop.className = 'secondary stop';
  stop.textContent = 'Arrêter la réponse';
  stop.hidden = true;
  stop.addEventListener('click', () => controller?.abort());
  button?.after(stop);

  const thread = region.parentElement;
  if (thread) addCopyButtons(thread, status);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (busy) return;
    const question = textarea.value.trim();
    if (!question) {
      textarea.focus();
      return;
    }
    busy = true;
    // The button stays focusable (disabling it would drop the focus to <body>).
    button?.setAttribute('aria-disabled', 'true');
    if (status) status.textContent = 'Recherche dans la documentation…';
    const body = new URLSearchParams(new FormData(form));
    controller = new AbortController();
    stop.hidden = false;

    // The previous answer leaves the live region without being re-announced.
    const earlier = earlierContainer(region);
    while (region.firstChild) earlier.appendChild(region.firstChild);

    region.setAttribute('aria-busy', 'true');
    const pending = document.createElement('article');
    pending.className = 'answer pending';
    const q = document.createElement('p');
    q.className = 'question';
    q.textContent = question;
    const text = document.createElement('div');
    text.className = 'answer-text';
    pending.append(q, text);
    region.append(pending);

    let finalHtml = '';
    let failed = '';
    try {
      const res = await fetch(form.action, {
        method: 'POST',
        body,
        credentials: 'same-origin',
        headers: { Accept: 'text/event-stream' },
        signal: controller.signal,
      });
      if (!res.ok || !res.body) {
        const info = await res.json().catch(() => ({}));
        throw new Error(info.error || `Erreur ${res.status}`);
      }
      await readSse(res.body, (name, data) => {
        if (name === 'delta' && data && typeof data.text === 'string') text.textContent += data.text;
        // A retried model call starts over: the failed attempt's text goes.
        else if (name === 'reset') text.textContent = '';
        else if (name === 'done' && data && typeof data.html === 'string') finalHtml = data.html;
      });
      if (!finalHtml) throw new Error('Réponse interrompue.');
    } catch (err) {
      failed = controller.signal.aborted ? 'stopped' : err instanceof Error ? err.message : String(err);
    }
    stop.hidden = true;
    controller = null;

    if (finalHtml) {
      region.innerHTML = finalHtml;
      // The streamed answer's copy button confirms in the same status line as the others.
      addCopyButtons(region, status);
      textarea.value = '';
      textarea.removeAttribute('aria-invalid');
    } else if (failed === 'stopped') {
      pending.classList.add('failed');
      const note = document.createElement('p');
      note.className = 'muted';
      note.textContent = 'Réponse arrêtée.';
      pending.append(note);
      textarea.focus();
    } else {
      pending.classList.add('failed');
      text.textContent = `La réponse n’a pas pu être obtenue : ${failed}`;
    }
    region.setAttribute('aria-busy', 'false');
    if (status) status.textContent = '';
    button?.removeAttribute('aria-disabled');
    busy = false;
    form.dispatchEvent(new CustomEvent('chat:answered', { bubbles: true }));
  });
}

for (const form of document.querySelectorAll('form[data-chat]')) enhance(form);
