// Draws the Mermaid figures of a document (figure.diagram, made by web/docs/markdownRender.ts) with
// the renderer frame of web/docs/diagrams.ts, and shows each as an <img> of the returned SVG
// with its source folded below. A figure that cannot be drawn keeps its source and says so.

const FRAME = '/docs/diagram-frame';
let ready = null;
let frame = null;
let next = 0;
const pending = new Map();

function renderer() {
  if (ready) return ready;
  ready = new Promise((resolve, reject) => {
    frame = document.createElement('iframe');
    frame.className = 'diagram-renderer';
    frame.title = 'Moteur de dessin des diagrammes';
    frame.tabIndex = -1;
    frame.setAttribute('aria-hidden', 'true');
    const timer = setTimeout(() => reject(new Error('le moteur de dessin ne répond pas')), 30000);
    window.addEventListener('message', (event) => {
      if (event.origin !== location.origin || !frame || event.source !== frame.contentWindow) return;
      const data = event.data || {};
      if (data.ready) {
        clearTimeout(timer);
        resolve();
        return;
      }
      const job = pending.get(data.id);
      if (!job) return;
      pending.delete(data.id);
      if (typeof data.svg === 'string') job.resolve(data.svg);
      else job.reject(new Error(data.error || 'diagramme invalide'));
    });
    frame.addEventListener('error', () => reject(new Error('moteur de dessin indisponible')));
    frame.src = FRAME;
    document.body.append(frame);
  });
  return ready;
}

async function draw(source) {
  await renderer();
  const id = `d${(next += 1)}`;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    frame.contentWindow.postMessage({ id, source }, location.origin);
  });
}

/** Draws every not-yet-drawn figure under `root`; resolves when all are settled. */
export async function drawDiagrams(root) {
  const figures = [...(root?.querySelectorAll('figure.diagram:not([data-drawn])') ?? [])];
  await Promise.all(
    figures.map(async (figure) => {
      const pre = figure.querySelector('pre');
      if (!pre) return;
      figure.dataset.drawn = 'pending';
      const name = (figure.querySelector('figcaption')?.textContent ?? 'Diagramme').replace(/\s*\(Mermaid\)\s*$/, '');
      try {
        const svg = await draw(pre.textContent ?? '');
        const img = document.createElement('img');
        img.className = 'diagram-img';
        img.alt = `${name} : dessin de la source Mermaid ci-dessous.`;
        const box = /viewBox="[-\d.e]+ [-\d.e]+ ([\d.e]+) ([\d.e]+)"/.exec(svg);
        if (box) {
          img.width = Math.ceil(Number(box[1]));
          img.height = Math.ceil(Number(box[2]));
        }
        img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
        const details = document.createElement('details');
        const summary = document.createElement('summary');
        summary.textContent = 'Source Mermaid';
        pre.replaceWith(img);
        details.append(summary, pre);
        img.after(details);
        figure.dataset.drawn = 'true';
      } catch (err) {
        const note = document.createElement('p');
        note.className = 'muted diagram-error';
        note.textContent = `Diagramme non dessiné (${err instanceof Error ? err.message : String(err)}) : sa source suit.`;
        pre.before(note);
        figure.dataset.drawn = 'failed';
      }
    }),
  );
}
