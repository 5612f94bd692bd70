/**
 * `npx tsx scripts/docs-pages-sweep.ts [CORPUS_DIR] [PATH_FILTER]`: opens the /docs index and every
 * document of a corpus (default ../shared/corpus) in Debian's Chromium at 375 and 1280 px, waits
 * for its diagrams, and prints each page state where axe (WCAG 2.1 A/AA + best practices, except
 * `heading-order`, which judges the documents' own outline) reports a violation, the page is wider
 * than the screen, a diagram was not drawn, or the console shows an error. Exit 1 if any.
 */
import { AxeBuilder } from '@axe-core/playwright';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../test/support/browser.js';
import { realAssistant, startPagesServer } from '../test/web/support/pagesServer.js';

const corpus = resolve(process.argv[2] ?? fileURLToPath(new URL('../../shared/corpus', import.meta.url)));
const filter = process.argv[3] ?? '';
const dataDir = mkdtempSync(join(tmpdir(), 'palabre-sweep-'));
const srv = await startPagesServer({ assistant: await realAssistant(corpus, dataDir), corpus });
const docs = srv.assistant.documents().map((d) => d.path).filter((p) => p.includes(filter));
if (docs.length === 0) {
  console.error(`no document in ${corpus}${filter ? ` whose path contains « ${filter} »` : ''}: give a corpus folder as the first argument`);
  await srv.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(2);
}
const browser = await launchChromium();
let bad = 0;
let states = 0;
try {
  for (const width of [375, 1280]) {
    const context = await browser.newContext({ baseURL: srv.url, viewport: { width, height: 800 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text().slice(0, 200));
    });
    page.on('pageerror', (e) => errors.push(e.message));
    for (const path of ['', ...docs]) {
      states++;
      await page.goto(`/docs${path ? `/${path.split('/').map(encodeURIComponent).join('/')}` : ''}`);
      await page
        .waitForFunction(() => !document.querySelector('figure.diagram:not([data-drawn="true"]):not([data-drawn="failed"])'), null, { timeout: 60_000 })
        .catch(() => errors.push('diagrams still drawing after 60 s'));
      const shape = await page.evaluate(() => ({ width: document.documentElement.scrollWidth, undrawn: document.querySelectorAll('figure.diagram[data-drawn="failed"]').length }));
      const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).disableRules(['heading-order']).analyze();
      const found = [
        ...axe.violations.map((v) => `${v.id} (${v.nodes.length})`),
        ...(shape.width > width ? [`${shape.width - width} px wider than the screen`] : []),
        ...(shape.undrawn ? [`${shape.undrawn} diagram(s) not drawn`] : []),
        ...errors.splice(0),
      ];
      if (found.length) {
        bad++;
        console.log(`${width} px /docs/${path}: ${found.join('; ')}`);
      }
    }
    await context.close();
  }
} finally {
  await browser.close();
  await srv.close();
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(`${bad} of ${states} page states with a problem (${docs.length} documents + the index, at 375 and 1280 px)`);
process.exit(bad ? 1 : 0);
