import { createRequire } from 'node:module';
import type { IRouter } from 'express';

/**
 * Mermaid diagrams drawn offline, in the visitor's browser, without loosening the pages' CSP.
 * mermaid lays a diagram out in a live document and styles it with inline `<style>` and `style`
 * attributes, which the pages' `style-src 'self'` refuses. So it runs in a hidden same-origin
 * frame (`/docs/diagram-frame`) whose own policy allows inline styles and nothing else more
 * (scripts from this origin only, no connection, no form); web/static/diagrams.js sends it each
 * figure's source and shows the SVG it returns as an `<img>` (data: URL), where the SVG's styles
 * apply inside the image and never to the page. The bundle is the `mermaid` package's, served
 * from node_modules; without it the figures keep their source, as without JavaScript.
 */

const DIAGRAM_FRAME_PATH = '/docs/diagram-frame';
const MERMAID_BUNDLE_PATH = '/static/vendor/mermaid.min.js';

const FRAME_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

const FRAME_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Diagram renderer</title>
<script src="${MERMAID_BUNDLE_PATH}"></script>
<script src="/static/diagram-frame.js"></script>
</head>
<body></body>
</html>
`;

function mermaidBundle(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');
  } catch {
    return undefined;
  }
}

/** Mounts the frame page and the mermaid bundle (before the viewer's `/docs/*path`). */
export function mountDiagrams(app: IRouter): void {
  const bundle = mermaidBundle();
  app.get(MERMAID_BUNDLE_PATH, (_req, res) => {
    if (!bundle) {
      res.status(404).type('text/plain').send('mermaid is not installed: diagrams are shown as their source.\n');
      return;
    }
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'public, max-age=86400' });
    res.sendFile(bundle);
  });
  app.get(DIAGRAM_FRAME_PATH, (_req, res) => {
    res.set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': FRAME_CSP,
      'X-Frame-Options': 'SAMEORIGIN',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    });
    res.send(FRAME_PAGE);
  });
}
