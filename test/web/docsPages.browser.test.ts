import { AxeBuilder } from '@axe-core/playwright';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatAnswer, DocsAssistant } from '../../machines/chatContract.js';
import { chromiumRequirement, launchChromium } from '../support/browser.js';
import { realAssistant, startPagesServer, type PagesServer } from './support/pagesServer.js';

/**
 * The docs pages on a doc set shaped like real ones (test/web/fixtures/realset: MDX components,
 * folders, mermaid, wide tables, tags named in the text), in Debian's Chromium at 1280 and 375 px:
 * text in angle brackets kept in answers, nothing wider than the screen, labels in the answer's
 * language, the copy button on streamed answers, the /docs index and search, folders in the side
 * list, diagrams drawn offline within the CSP, error pages in the site's layout, distinct landmark
 * names, the favicon; axe (WCAG 2.1 A/AA and best practices) on every page state.
 */
const REALSET = fileURLToPath(new URL('./fixtures/realset', import.meta.url));
const WIDE = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 740 };
const VIEWPORTS = [['1280', WIDE], ['375', PHONE]] as const;

const IMAGE_Q = 'Quelle alternative pour une image objet (balise object) ?';
const EN_Q = 'How does the client launch the server in the stdio transport?';
const FR_Q = 'Combien de temps les journaux techniques sont-ils conservés ?';
const LONG_TOKEN = `OPENAI_API_KEY=sk-proj-${'A1b2C3d4E5f6'.repeat(12)}`;
const HOSTILE_TEXT = 'Les gabarits sont dans prompts/<surface>/ ; un modèle a écrit <img src=x onerror="window.__pwned=1"> et <script>window.__pwned=2</script> fin.';

/** The real assistant, with two scripted answers: a long unbroken token, and markup in the text. */
function scripted(real: DocsAssistant): DocsAssistant {
  const canned = (text: string): ChatAnswer => ({ state: 'answered', answer: text, outOfScope: false, confidence: 'high', lang: 'fr', removedMarks: 0, sources: [], flagged: [], provider: 'offline', model: 'offline' });
  return {
    ...real,
    search: (q, k) => real.search(q, k),
    documents: () => real.documents(),
    readDocument: (p) => real.readDocument(p),
    defaults: () => real.defaults(),
    providerName: () => real.providerName(),
    async ask(req): Promise<ChatAnswer> {
      const text = req.question.startsWith('LONG') ? `Réglez la clé dans .env : ${LONG_TOKEN} puis relancez.` : req.question.startsWith('MARKUP') ? HOSTILE_TEXT : undefined;
      if (text === undefined) return real.ask(req);
      for (const word of text.split(/(?<= )/)) req.onDelta?.(word);
      return canned(text);
    },
  };
}

describe.skipIf(!chromiumRequirement.ok)(`docs pages on a real-shaped doc set in Chromium (${chromiumRequirement.reason})`, () => {
  let srv: PagesServer;
  let browser: Browser;
  let dataDir: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'palabre-realset-'));
    srv = await startPagesServer({ assistant: scripted(await realAssistant(REALSET, dataDir)), corpus: REALSET });
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await srv?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  interface Opened {
    page: Page;
    /** Page errors, console errors, CSP violations and requests that left this origin. */
    problems: string[];
  }

  async function open(viewport: { width: number; height: number }): Promise<Opened> {
    const context = await browser.newContext({ baseURL: srv.url, viewport });
    contexts.push(context);
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const problems: string[] = [];
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 40[04]/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    page.on('request', (r) => {
      if (!r.url().startsWith(srv.url) && !r.url().startsWith('data:')) problems.push(`offsite request: ${r.url()}`);
    });
    return { page, problems };
  }

  async function axe(page: Page): Promise<string[]> {
    const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }

  /** How much wider than the viewport the page is (0 when it fits), and the widest offender. */
  async function overflow(page: Page): Promise<string> {
    return page.evaluate(() => {
      const width = window.innerWidth;
      const extra = document.documentElement.scrollWidth - width;
      if (extra <= 0) return '';
      let widest = '';
      let right = width;
      for (const el of document.querySelectorAll('body *')) {
        const r = el.getBoundingClientRect().right;
        if (r > right) {
          right = r;
          widest = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].join('.')}`;
        }
      }
      return `${extra}px too wide (${widest} ends at ${Math.round(right)}px)`;
    });
  }

  async function ask(page: Page, form: 'a' | 'c', question: string): Promise<void> {
    await page.fill(`#${form}_question`, question);
    await page.click(`#${form}_form button[type="submit"]`);
    await page.waitForSelector(`#${form}_answer article[data-state="answered"] button.copy`);
  }

  const drawn = (page: Page): Promise<unknown> =>
    page.waitForFunction(() => document.querySelectorAll('figure.diagram').length > 0 && !document.querySelector('figure.diagram:not([data-drawn="true"])'));

  /** Every page state the tests visit, reached from a fresh page. */
  const STATES: Array<[string, (page: Page) => Promise<unknown>]> = [
    ['home', (p) => p.goto('/')],
    ['/assistant', (p) => p.goto('/assistant')],
    ['/assistant answered, tags in the text', async (p) => (await p.goto('/assistant'), ask(p, 'a', IMAGE_Q))],
    ['/assistant answered, markup written by a model', async (p) => (await p.goto('/assistant'), ask(p, 'a', 'MARKUP ?'))],
    ['/assistant answered, long token', async (p) => (await p.goto('/assistant'), ask(p, 'a', 'LONG ?'))],
    ['/assistant answered in English', async (p) => (await p.goto('/assistant'), ask(p, 'a', EN_Q))],
    ['/docs index', (p) => p.goto('/docs')],
    ['/docs search results', (p) => p.goto('/docs?q=transport')],
    ['/docs search without results', (p) => p.goto('/docs?q=zzzz')],
    ['/docs search too long (400)', (p) => p.goto(`/docs?q=${'x'.repeat(201)}`)],
    ['/docs MDX components and diagram', async (p) => (await p.goto('/docs/mcp/spec_index.mdx'), drawn(p))],
    ['/docs diagram, source opened', async (p) => (await p.goto('/docs/mcp/spec_basic_transports.mdx'), await drawn(p), p.click('figure.diagram summary'))],
    ['/docs wide table', (p) => p.goto('/docs/rgaa/criteres.md')],
    ['/docs panel answered', async (p) => (await p.goto('/docs/rgaa/criteres.md'), await p.click('#chat_toggle'), ask(p, 'c', IMAGE_Q))],
    ['/docs unknown document (404)', (p) => p.goto('/docs/nope.md')],
    ['unknown page (404)', (p) => p.goto('/nothing/here')],
    ['malformed address (400)', (p) => p.goto('/docs/%E0%A4%A')],
    ['/admin/login', (p) => p.goto('/admin/login')],
  ];

  for (const [size, viewport] of VIEWPORTS) {
    it(`axe (WCAG 2.1 A/AA + best practices) is clean and nothing is wider than the screen, on every page state at ${size} px`, async () => {
      const report: Record<string, string[]> = {};
      const { page, problems } = await open(viewport);
      for (const [name, reach] of STATES) {
        await reach(page);
        const found = await axe(page);
        const wide = await overflow(page);
        report[`${size} ${name}`] = [...found, ...(wide ? [`overflow: ${wide}`] : []), ...problems.splice(0)];
      }
      expect(report).toEqual(Object.fromEntries(Object.keys(report).map((k) => [k, []])));
    }, 600_000);
  }

  it('text in angle brackets stays in web answers, streamed and final; markup a model writes is shown, never run', async () => {
    for (const [, viewport] of VIEWPORTS) {
      const { page, problems } = await open(viewport);
      await page.goto('/assistant');
      await page.evaluate(() => {
        const w = window as unknown as { __streamed: string };
        w.__streamed = '';
        const region = document.getElementById('a_answer')!;
        new MutationObserver(() => {
          if (region.getAttribute('aria-busy') === 'true') w.__streamed = region.querySelector('.answer-text')?.textContent ?? w.__streamed;
        }).observe(region, { childList: true, subtree: true, characterData: true, attributes: true });
      });
      await ask(page, 'a', IMAGE_Q);
      const final = await page.locator('#a_answer .answer-text').innerText();
      const streamed = await page.evaluate(() => (window as unknown as { __streamed: string }).__streamed);
      for (const kept of ['(balise <img> ou balise possédant', '(balise <object> avec l’attribut type="image/…")', '<object type="image/png">']) {
        expect(streamed).toContain(kept);
        expect(final).toContain(kept);
      }
      // The quotes keep their citation links and their language.
      await expect(page.locator('#a_answer .answer-text a.mark').count()).resolves.toBeGreaterThanOrEqual(2);
      await expect(page.locator('#a_answer .answer-text span[lang="fr"]').count()).resolves.toBeGreaterThanOrEqual(2);
      await ask(page, 'a', 'MARKUP ?');
      const text = await page.locator('#a_answer .answer-text').innerText();
      expect(text).toContain('prompts/<surface>/');
      expect(text).toContain('<img src=x onerror="window.__pwned=1"> et <script>window.__pwned=2</script> fin.');
      const inert = await page.evaluate(() => ({ pwned: (window as unknown as { __pwned?: number }).__pwned ?? null, elements: document.querySelectorAll('#a_answer .answer-text img, #a_answer .answer-text script').length }));
      expect(inert).toEqual({ pwned: null, elements: 0 });
      expect(problems).toEqual([]);
    }
  }, 120_000);

  it('a long token wraps inside the answer column on a phone; tables and code scroll in their own block', async () => {
    const { page, problems } = await open(PHONE);
    await page.goto('/assistant');
    await ask(page, 'a', 'LONG ?');
    const box = await page.locator('#a_answer article').evaluate((a) => {
      const r = a.getBoundingClientRect();
      return { left: r.left, right: r.right, text: a.querySelector('.answer-text')?.textContent ?? '' };
    });
    expect(box.left).toBeGreaterThanOrEqual(0);
    expect(box.right).toBeLessThanOrEqual(PHONE.width);
    expect(box.text).toContain(LONG_TOKEN);
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(PHONE.width);
    await page.goto('/docs/rgaa/criteres.md');
    const table = await page.locator('#doc_view .table-scroll').evaluate((d) => ({ scrolls: d.scrollWidth > d.clientWidth, right: d.getBoundingClientRect().right, overflowX: getComputedStyle(d).overflowX }));
    expect(table).toMatchObject({ scrolls: true, overflowX: 'auto' });
    expect(table.right).toBeLessThanOrEqual(PHONE.width);
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(PHONE.width);
    expect(problems).toEqual([]);
  });

  it('an answer carries labels in its own language; the copy button of a streamed answer confirms', async () => {
    for (const [, viewport] of VIEWPORTS) {
      const { page, problems } = await open(viewport);
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
      await page.goto('/assistant');
      await ask(page, 'a', EN_Q);
      const en = page.locator('#a_answer article');
      await expect(en.getAttribute('data-lang')).resolves.toBe('en');
      await expect(en.locator('.sources-title').textContent()).resolves.toBe('Sources');
      await expect(en.locator('.sources-title').getAttribute('lang')).resolves.toBe('en');
      await expect(en.locator('.meta').textContent()).resolves.toBe('Extractive answer (offline provider) · confidence: high');
      await expect(en.locator('.meta').getAttribute('lang')).resolves.toBe('en');
      await expect(en.locator('.question .visually-hidden').textContent()).resolves.toBe('Question: ');
      // The list is numbered like the [n] marks: mark n points at item n.
      const marks = await en.locator('.answer-text a.mark').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
      expect(marks.length).toBeGreaterThan(0);
      for (const [text, href] of marks) {
        const n = Number(text!.replace(/\D/g, ''));
        await expect(en.locator(`ol.sources > li:nth-child(${n})`).getAttribute('id')).resolves.toBe(href!.slice(1));
      }
      // The streamed answer's copy button says it copied.
      await en.locator('button.copy').click();
      await expect.poll(() => page.locator('#a_status').textContent()).toBe('Réponse copiée.');
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toContain('the client launches the MCP server as a subprocess');

      await ask(page, 'a', FR_Q);
      const fr = page.locator('#a_answer article');
      await expect(fr.locator('.meta').textContent()).resolves.toBe('Réponse extractive (fournisseur hors ligne) · confiance : haute');
      await expect(fr.locator('.meta').getAttribute('lang')).resolves.toBeNull();
      await expect(fr.locator('.question .visually-hidden').textContent()).resolves.toBe('Question : ');
      expect(problems).toEqual([]);
    }
    // A low-confidence English answer: its notice and its confidence in English too.
    await srv.pages.chatConfig.save({ ...srv.assistant.defaults(), threshold: 0.05, confident: 0.99 });
    try {
      const { page, problems } = await open(WIDE);
      await page.goto('/docs/mcp/spec_basic_transports.mdx');
      await page.click('#chat_toggle');
      await ask(page, 'c', EN_Q);
      const low = page.locator('#c_answer article');
      await expect(low.getAttribute('data-confidence')).resolves.toBe('low');
      await expect(low.locator('.meta').textContent()).resolves.toBe('Extractive answer (offline provider) · confidence: low');
      await expect(low.locator('.notice-low').getAttribute('lang')).resolves.toBe('en');
      expect(await low.locator('.notice-low').textContent()).toMatch(/^[A-Z][^àéèç«»]+$/);
      expect(problems).toEqual([]);
    } finally {
      await srv.pages.chatConfig.reset();
    }
  }, 120_000);

  it('/docs is an index with a search box; the side list groups files by folder', async () => {
    for (const [, viewport] of VIEWPORTS) {
      const { page, problems } = await open(viewport);
      await page.goto('/docs');
      await expect(page.locator('#doc_view h1').textContent()).resolves.toBe('Documentation');
      const folders = await page.locator('#doc_view .docs-folder h3').allTextContents();
      expect(folders).toEqual(['mcp/ (2)', 'rgaa/ (1)', 'rgpd/ (2)']);
      // Folders fold in the side list; on the index none is open.
      const groups = await page.locator('#docs_tree details.dir-group').evaluateAll((ds) => ds.map((d) => [d.getAttribute('data-dir'), (d as HTMLDetailsElement).open]));
      expect(groups).toEqual([['mcp/', false], ['rgaa/', false], ['rgpd/', false]]);
      await page.fill('#docs_q', 'Origin header DNS rebinding');
      await Promise.all([page.waitForURL('**/docs?q=Origin+header+DNS+rebinding'), page.press('#docs_q', 'Enter')]);
      const first = page.locator('#doc_view ol.search-results > li a').first();
      await expect(first.getAttribute('href')).resolves.toBe('/docs/mcp/spec_basic_transports.mdx#streamable-http');
      await expect(page.locator('#doc_view h2#docs_results').textContent()).resolves.toBe('Résultats pour « Origin header DNS rebinding »');
      // A result opens in the viewer; its folder opens in the side list and its link is current.
      if (viewport === PHONE) await page.locator('#docs_tree_list > summary').click();
      await first.click();
      await page.waitForURL('**/docs/mcp/spec_basic_transports.mdx#streamable-http');
      await page.waitForFunction(() => document.activeElement?.id === 'streamable-http');
      const current = await page.evaluate(() => {
        const a = document.querySelector('#docs_tree a[aria-current="page"]');
        return { href: a?.getAttribute('href'), open: (a?.closest('details.dir-group') as HTMLDetailsElement | null)?.open };
      });
      expect(current).toEqual({ href: '/docs/mcp/spec_basic_transports.mdx', open: true });
      // Server-drawn: the current document's folder is open, the others folded.
      await page.goto('/docs/rgpd/README.md');
      const openDirs = await page.locator('#docs_tree details.dir-group[open]').evaluateAll((ds) => ds.map((d) => d.getAttribute('data-dir')));
      expect(openDirs).toEqual(['rgpd/']);
      expect(problems).toEqual([]);
    }
  }, 120_000);

  it('MDX components render their content; mermaid is drawn offline, within the CSP, with its source at hand', async () => {
    for (const [, viewport] of VIEWPORTS) {
      const { page, problems } = await open(viewport);
      await page.goto('/docs/mcp/spec_index.mdx');
      const view = page.locator('#doc_view');
      await expect(view.locator('.callout-note').innerText()).resolves.toMatch(/Note\s+MCP focuses solely on the protocol for context exchange\. See the transports for how messages travel\./);
      await expect(view.locator('.callout-note a').getAttribute('href')).resolves.toBe('/docs/mcp/spec_basic_transports.mdx');
      await expect(view.locator('.callout-warning').innerText()).resolves.toContain('Servers MUST NOT use elicitation');
      const cards = await view.locator('ul.cards > li.card').evaluateAll((cs) => cs.map((c) => (c as HTMLElement).innerText.replace(/\s+/g, ' ').trim()));
      expect(cards).toEqual(['Transports', 'Client Features Roots, sampling and elicitation.']);
      await expect(view.locator('ul.cards a').first().getAttribute('href')).resolves.toBe('/docs/mcp/spec_basic_transports.mdx');
      await expect(view.locator('ol.steps .step-title').allTextContents()).resolves.toEqual(['Initialization (Lifecycle Management)', 'Tool Discovery']);
      await expect(view.locator('.code-group .code-title').allTextContents()).resolves.toEqual(['Initialize Request', 'Initialize Response']);
      await expect(view.textContent()).resolves.toContain('stateful protocol (A subset of MCP can be made stateless using the Streamable HTTP transport) between clients');
      await expect(view.textContent()).resolves.not.toContain('snippets');
      // The diagram: an image of the drawn SVG, named, with its source folded below.
      await drawn(page);
      const figure = view.locator('figure.diagram');
      const img = await figure.locator('img.diagram-img').evaluate((i: HTMLImageElement) => ({ alt: i.alt, loaded: i.complete && i.naturalWidth > 0, svg: i.src.startsWith('data:image/svg+xml') }));
      expect(img).toEqual({ alt: 'Diagramme : dessin de la source Mermaid ci-dessous.', loaded: true, svg: true });
      await expect(figure.locator('details > summary').textContent()).resolves.toBe('Source Mermaid');
      await expect(figure.locator('details pre').textContent()).resolves.toContain('Client->>Server: initialize');
      const drawnText = await figure.locator('img').evaluate((i: HTMLImageElement) => decodeURIComponent(i.src));
      expect(drawnText).toContain('capabilities');
      // The page's policy stays strict: no inline style, no offsite script.
      const res = await page.request.get('/docs/mcp/spec_index.mdx');
      expect(res.headers()['content-security-policy']).toContain("style-src 'self';");
      // Loaded in the viewer without a reload, a document's diagrams are drawn too.
      await page.evaluate(() => ((window as unknown as { __marker: number }).__marker = 1));
      await page.locator('#doc_view ul.cards a').first().click();
      await page.waitForURL('**/docs/mcp/spec_basic_transports.mdx');
      await drawn(page);
      await expect(page.evaluate(() => (window as unknown as { __marker?: number }).__marker)).resolves.toBe(1);
      await expect(page.locator('#doc_view figure.diagram img.diagram-img').count()).resolves.toBe(1);
      expect(problems).toEqual([]);
    }
  }, 120_000);

  it('error pages use the site layout (title, lang, main, h1); code blocks and tables have distinct landmark names; a favicon', async () => {
    for (const [, viewport] of VIEWPORTS) {
      const { page } = await open(viewport);
      for (const [path, status, title] of [['/nothing/here', 404, 'Page introuvable'], ['/docs/%E0%A4%A', 400, 'Requête invalide']] as const) {
        const res = await page.goto(path);
        expect(res?.status()).toBe(status);
        const shape = await page.evaluate(() => ({
          title: document.title,
          lang: document.documentElement.lang,
          mains: document.querySelectorAll('main').length,
          h1: document.querySelector('main h1')?.textContent,
          nav: document.querySelectorAll('header nav a').length > 0,
          icon: document.querySelector('link[rel="icon"]')?.getAttribute('href'),
        }));
        expect(shape).toEqual({ title: `${title} (${status}) — palabre`, lang: 'fr', mains: 1, h1: title, nav: true, icon: '/static/favicon.svg' });
      }
      await page.goto('/docs/mcp/spec_index.mdx');
      const names = await page.locator('[role="region"]').evaluateAll((rs) => rs.map((r) => r.getAttribute('aria-label')));
      expect(names).toEqual(['Bloc de code 1', 'Bloc de code 2', 'Source Mermaid — Diagramme', 'Tableau']);
      await page.goto('/docs/mcp/spec_basic_transports.mdx');
      expect(new Set(await page.locator('main [role="region"], main nav, main form[role="search"]').evaluateAll((rs) => rs.map((r) => r.getAttribute('aria-label'))))).toHaveProperty('size', await page.locator('main [role="region"], main nav, main form[role="search"]').count());
    }
    for (const path of ['/favicon.ico', '/static/favicon.svg']) {
      const res = await fetch(`${srv.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('image/svg+xml');
      expect(await res.text()).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    }
    // JSON clients and /api keep JSON errors.
    const json = await fetch(`${srv.url}/nothing/here`, { headers: { Accept: 'application/json' } });
    expect([json.status, await json.json()]).toEqual([404, { error: 'not found' }]);
  }, 120_000);

  it('with admin pages disabled, /admin answers a 404 page in the site layout (plain text for non-browsers)', async () => {
    const off = await startPagesServer({ assistant: srv.assistant, adminPassword: null });
    try {
      const { page } = await open(WIDE);
      const res = await page.goto(`${off.url}/admin/login`);
      expect(res?.status()).toBe(404);
      await expect(page.locator('main h1').textContent()).resolves.toBe('Page introuvable');
      await expect(page.locator('main').textContent()).resolves.toContain('ADMIN_PASSWORD');
      expect(await axe(page)).toEqual([]);
      const text = await fetch(`${off.url}/admin/login`, { headers: { Accept: 'text/plain' } });
      expect([text.status, await text.text()]).toEqual([404, 'Admin pages are disabled: set ADMIN_PASSWORD to enable them.\n']);
    } finally {
      await off.close();
    }
  });
});
