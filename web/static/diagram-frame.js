// Runs inside /docs/diagram-frame (web/docs/diagrams.ts): draws the Mermaid source its parent
// page sends and answers with the SVG text, or the error. Only this origin's parent is heard.
/* global mermaid */
mermaid.initialize({
  startOnLoad: false,
  securityLevel: 'strict',
  theme: 'default',
  // Plain SVG text labels: the SVG is shown as an image, where HTML labels would not be reliable.
  htmlLabels: false,
  flowchart: { htmlLabels: false },
  fontFamily: '"DejaVu Sans", Arial, sans-serif',
});

let seq = 0;
window.addEventListener('message', async (event) => {
  if (event.origin !== location.origin || event.source !== window.parent) return;
  const { id, source } = event.data || {};
  if (typeof id !== 'string' || typeof source !== 'string') return;
  seq += 1;
  try {
    const { svg } = await mermaid.render(`diagram_${seq}`, source);
    window.parent.postMessage({ id, svg }, location.origin);
  } catch (err) {
    window.parent.postMessage({ id, error: String((err && err.message) || err) }, location.origin);
  }
});
window.parent.postMessage({ ready: true }, location.origin);
