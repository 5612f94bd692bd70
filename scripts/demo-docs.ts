/**
 * `npm run demo:docs`: the docs assistant demo (docs/docs-assistant.md#where-an-answers-settings-come-from). Starts the real
 * server (docs surface only) on ../shared/corpus (or CORPUS_DIR), asks questions on RGPD, MCP and
 * accessibility in Debian's Chromium, and saves screenshots of the answered pages to docs/img/.
 * Uses whatever provider the environment configures (offline without an API key, and says so).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPalabreConfig } from '../actors/palabreConfig.js';
import { createLogger } from '../core/log.js';
import { startServer } from '../actors/serve.js';
import { findBinary } from '../test/support/requires.js';
import { launchChromium } from '../test/support/browser.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'docs', 'img');

interface Shot {
  file: string;
  question: string;
  page: 'assistant' | 'docs';
}

const SHOTS: Shot[] = [
  { file: 'demo-rgpd.png', page: 'assistant', question: 'Combien de temps faut-il conserver les données d’un dossier médical ?' },
  { file: 'demo-mcp.png', page: 'assistant', question: 'Comment un client MCP découvre-t-il les outils ?' },
  { file: 'demo-accessibilite.png', page: 'assistant', question: 'Que doit contenir la déclaration d’accessibilité RGAA ?' },
  { file: 'demo-docs-viewer.png', page: 'docs', question: 'Quelles mesures contre les injections SQL ?' },
];

async function main(): Promise<number> {
  if (!findBinary('chromium')) {
    console.error('demo:docs needs Debian chromium: apt-get install -y chromium');
    return 1;
  }
  const corpus = resolve(process.env.CORPUS_DIR ?? join(ROOT, '..', 'shared', 'corpus'));
  const dataDir = mkdtempSync(join(tmpdir(), 'palabre-demo-'));
  const config = loadPalabreConfig({
    env: { ...process.env, CORPUS_DIR: corpus, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', MQTT_EMBEDDED_PORT: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    dotenvPath: null,
  });
  const logger = createLogger({ level: config.LOG_LEVEL });
  const server = await startServer({ config, logger, surfaces: [() => import('../actors/docs/surface.js').then((m) => m.docsSurface)] });
  const base = server.ctx.publicUrl;
  mkdirSync(OUT, { recursive: true });
  const browser = await launchChromium();
  try {
    for (const shot of SHOTS) {
      // A fresh browser context per question: one visitor session, one exchange on screen.
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: base });
      const page = await context.newPage();
      if (shot.page === 'assistant') {
        await page.goto('/assistant');
        await page.fill('#a_question', shot.question);
        await page.click('#a_form button[type="submit"]');
        await page.waitForSelector('#a_answer article[data-state]', { timeout: 120_000 });
      } else {
        await page.goto('/docs');
        await page.click('#chat_toggle');
        await page.fill('#c_question', shot.question);
        await page.click('#c_form button[type="submit"]');
        await page.waitForSelector('#c_answer article[data-state]', { timeout: 120_000 });
        const source = page.locator('#c_answer a.source-link').first();
        if (await source.count()) {
          await source.click();
          await page.waitForFunction(() => document.activeElement?.closest('#doc_view') !== null);
        }
      }
      const state = await page.locator('article[data-state]').last().getAttribute('data-state');
      await page.screenshot({ path: join(OUT, shot.file), fullPage: shot.page === 'assistant' });
      console.log(`${shot.file}: ${state} — ${shot.question}`);
      await context.close();
    }
  } finally {
    await browser.close();
    await server.shutdown('demo done');
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`screenshots in ${OUT}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
