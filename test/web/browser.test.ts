import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumRequirement, launchChromium } from '../support/browser.js';
import { ADMIN_PASSWORD, FIXTURE_CORPUS, startPagesServer, type PagesServer } from './support/pagesServer.js';

/**
 * The docs pages in Debian's Chromium: no-JS POST, the JS flow (fetch + SSE, aria-busy), source
 * links without reload and with focus moved, axe WCAG 2.1 A/AA on every page, a keyboard-only
 * walk, admin CSRF rejection, and a hostile corpus document.
 */

// « gardés » is not the fixture's word (« conservés »): the best score stays under 1, so a high bound of 0.99 is out of reach.
const IN_SCOPE = 'Combien de temps les journaux techniques sont-ils gardés ?';
const MCP = 'Comment le client découvre-t-il les outils MCP ?';
const OUT_OF_SCOPE = 'Quelle est la recette de la tarte tatin aux pommes caramélisées ?';

describe.skipIf(!chromiumRequirement.ok)(`docs pages in Chromium (${chromiumRequirement.reason})`, () => {
  let srv: PagesServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    srv = await startPagesServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await srv?.close();
  });

  async function newPage(opts: { js?: boolean } = {}): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ javaScriptEnabled: opts.js ?? true, baseURL: srv.url });
    contexts.push(context);
    // Fail at the step that hangs, with its selector, rather than at the test timeout.
    context.setDefaultTimeout(8000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    return { page, problems };
  }

  async function axe(page: Page): Promise<string[]> {
    const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }

  it('without JavaScript, the form POST returns the whole page with the answer and its sources', async () => {
    const { page } = await newPage({ js: false });
    await page.goto('/assistant');
    await page.fill('#a_question', IN_SCOPE);
    await Promise.all([page.waitForURL('**/assistant/ask'), page.click('#a_form button[type="submit"]')]);
    const region = page.locator('#a_answer');
    await expect(region.getAttribute('aria-live')).resolves.toBe('polite');
    await expect(region.textContent()).resolves.toContain('trente jours');
    await expect(region.locator('a.source-link').first().getAttribute('href')).resolves.toBe('/docs/rgpd.md#durees-de-conservation');
    // A source link is a plain link: it opens the viewer at the cited section.
    await Promise.all([page.waitForURL('**/docs/rgpd.md#durees-de-conservation'), region.locator('a.source-link').first().click()]);
    await expect(page.locator('#durees-de-conservation:target').count()).resolves.toBe(1);
    // Controls that only work with JavaScript are not shown (nor focusable) without it.
    await expect(page.locator('#chat_close').isVisible()).resolves.toBe(false);
    // The embedded chat is a plain region without JS, and posts too.
    await page.fill('#c_question', MCP);
    await Promise.all([page.waitForURL('**/docs/ask'), page.click('#c_form button[type="submit"]')]);
    await expect(page.locator('#c_answer a.source-link').first().getAttribute('href')).resolves.toBe('/docs/mcp.md#serveurs-et-outils');
    await expect(page.locator('#c_answer article').getAttribute('data-state')).resolves.toBe('answered');
    await expect(page.locator('#c_answer').textContent()).resolves.toContain(MCP);
  });

  it('with JavaScript, the answer streams into the live region (aria-busy while streaming) without a page load', async () => {
    const { page, problems } = await newPage();
    await page.goto('/assistant');
    await page.evaluate(() => {
      const w = window as unknown as { __busy: string[]; __marker: number };
      w.__marker = 42;
      w.__busy = [];
      const region = document.getElementById('a_answer');
      if (region) new MutationObserver(() => w.__busy.push(region.getAttribute('aria-busy') ?? '')).observe(region, { attributes: true, attributeFilter: ['aria-busy'] });
    });
    await page.fill('#a_question', IN_SCOPE);
    await page.click('#a_form button[type="submit"]');
    await page.waitForSelector('#a_answer article[data-state="answered"]');
    const state = await page.evaluate(() => {
      const w = window as unknown as { __busy: string[]; __marker?: number };
      return { busy: w.__busy, marker: w.__marker, path: location.pathname, question: (document.getElementById('a_question') as HTMLTextAreaElement).value };
    });
    expect(state.marker).toBe(42); // same document: no navigation happened
    expect(state.path).toBe('/assistant');
    expect(state.busy).toEqual(['true', 'false']);
    expect(state.question).toBe('');
    await expect(page.locator('#a_answer a.source-link').first().getAttribute('href')).resolves.toBe('/docs/rgpd.md#durees-de-conservation');
    // A second question: the first answer moves out of the live region.
    await page.fill('#a_question', OUT_OF_SCOPE);
    await page.click('#a_form button[type="submit"]');
    await page.waitForSelector('#a_answer article[data-state="outOfScope"]');
    await expect(page.locator('#a_answer article').count()).resolves.toBe(1);
    await expect(page.locator('#a_thread .earlier article[data-state="answered"]').count()).resolves.toBe(1);
    // Kept server-side: a reload shows the same conversation.
    await page.reload();
    await expect(page.locator('#a_thread article').count()).resolves.toBe(2);
    expect(problems).toEqual([]);
  });

  it('in /docs, a source link loads the document without reload and moves focus to the cited section; Back works', async () => {
    const { page, problems } = await newPage();
    await page.goto('/docs/mcp.md');
    await page.evaluate(() => {
      (window as unknown as { __marker: number }).__marker = 7;
    });
    await expect(page.locator('#chat_panel').isHidden()).resolves.toBe(true);
    await page.click('#chat_toggle');
    await expect(page.locator('#chat_toggle').getAttribute('aria-expanded')).resolves.toBe('true');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('c_question');
    await page.fill('#c_question', IN_SCOPE);
    await page.click('#c_form button[type="submit"]');
    await page.waitForSelector('#c_answer article[data-state="answered"]');
    await page.locator('#c_answer a.source-link').first().click();
    await page.waitForURL('**/docs/rgpd.md#durees-de-conservation');
    await page.waitForFunction(() => document.activeElement?.id === 'durees-de-conservation');
    const after = await page.evaluate(() => ({
      marker: (window as unknown as { __marker?: number }).__marker,
      title: document.title,
      current: document.querySelector('#docs_tree a[aria-current="page"]')?.getAttribute('href'),
      doc: (document.querySelector('#c_form input[name="doc"]') as HTMLInputElement).value,
    }));
    expect(after).toEqual({ marker: 7, title: 'Données personnelles et RGPD — palabre', current: '/docs/rgpd.md', doc: 'rgpd.md' });
    await page.goBack();
    await page.waitForURL('**/docs/mcp.md');
    await page.waitForFunction(() => document.querySelector('#doc_view')?.textContent?.includes('Model Context Protocol'));
    await expect(page.evaluate(() => (window as unknown as { __marker?: number }).__marker)).resolves.toBe(7);
    expect(problems).toEqual([]);
  });

  it('axe (WCAG 2.1 A/AA) reports zero violations on every page and state', async () => {
    const { page } = await newPage();
    const report: Record<string, string[]> = {};
    await page.goto('/');
    report['/'] = await axe(page);
    await page.goto('/assistant');
    report['/assistant'] = await axe(page);
    await page.fill('#a_question', IN_SCOPE);
    await page.click('#a_form button[type="submit"]');
    await page.waitForSelector('#a_answer article[data-state="answered"]');
    report['/assistant answered'] = await axe(page);
    await page.goto('/docs');
    report['/docs'] = await axe(page);
    await page.goto('/docs/guides/demarrage.mdx');
    report['/docs mdx'] = await axe(page);
    await page.click('#chat_toggle');
    await page.fill('#c_question', MCP);
    await page.click('#c_form button[type="submit"]');
    await page.waitForSelector('#c_answer article[data-state="answered"]');
    report['/docs panel answered'] = await axe(page);
    await page.goto('/docs/nope.md');
    report['/docs 404'] = await axe(page);
    await page.goto('/admin/login');
    report['/admin/login'] = await axe(page);
    await page.fill('#password', ADMIN_PASSWORD);
    await Promise.all([page.waitForURL('**/admin/chat/params'), page.click('form[action="/admin/login"] button')]);
    report['/admin/chat/params'] = await axe(page);
    // A value the browser lets through but the server refuses: the error is tied to its field.
    await page.fill('#p_model', 'pas un modèle !');
    await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('form[action="/admin/chat/params"] button')]);
    await expect(page.locator('#p_model').getAttribute('aria-invalid')).resolves.toBe('true');
    report['/admin/chat/params invalid'] = await axe(page);
    await page.goto('/admin/docs/gaps');
    await expect(page.locator('table tbody tr').count()).resolves.toBe(2);
    await expect(page.locator('table tbody').textContent()).resolves.toContain('<b>tarte</b>');
    report['/admin/docs/gaps'] = await axe(page);

    // axe needs JavaScript in the page, so the no-JS rendering is audited with our scripts blocked.
    const { page: noJs } = await newPage();
    await noJs.route('**/static/*.js', (route) => route.abort());
    await noJs.goto('/docs/rgpd.md');
    await expect(noJs.locator('#chat_panel').isVisible()).resolves.toBe(true);
    report['/docs no-JS'] = await axe(noJs);
    expect(report).toEqual(Object.fromEntries(Object.keys(report).map((k) => [k, []])));
  }, 120_000);

  it('keyboard only: skip link, question, answer, source link, focus on the cited section, panel, Escape', async () => {
    const { page, problems } = await newPage();
    await page.goto('/assistant');
    const focused = (): Promise<{ id: string; tag: string; text: string; outline: string }> =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        const style = el ? getComputedStyle(el) : null;
        return { id: el?.id ?? '', tag: el?.tagName ?? '', text: (el?.textContent ?? '').trim().slice(0, 60), outline: style ? `${style.outlineStyle} ${style.outlineWidth}` : '' };
      });
    await page.keyboard.press('Tab');
    let f = await focused();
    expect(f.text).toBe('Aller au contenu principal');
    expect(f.outline).not.toMatch(/^none/);
    await page.keyboard.press('Enter');
    await expect(focused()).resolves.toMatchObject({ id: 'page_main' });
    await page.keyboard.press('Tab');
    f = await focused();
    expect(f.id).toBe('a_question');
    expect(f.outline).toMatch(/^solid 3px/);
    await page.keyboard.type(IN_SCOPE);
    await page.keyboard.press('Tab');
    f = await focused();
    expect(f).toMatchObject({ tag: 'BUTTON', text: 'Envoyer la question' });
    expect(f.outline).toMatch(/^solid 3px/);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#a_answer article[data-state="answered"]');
    // Focus stayed on the button (not dropped to <body>); Shift+Tab back, then forward to the source.
    await expect(focused()).resolves.toMatchObject({ tag: 'BUTTON' });
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    f = await focused();
    expect(f.tag).toBe('A');
    expect(f.text).toContain('rgpd.md');
    await Promise.all([page.waitForURL('**/docs/rgpd.md#durees-de-conservation'), page.keyboard.press('Enter')]);
    await page.waitForFunction(() => document.activeElement?.id === 'durees-de-conservation');
    // The sequential focus point is the cited section: Shift+Tab reaches the navigation tree just
    // before the document, not the top of the page.
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('#docs_tree') !== null)).toBe(true);

    // The panel: reach the toggle by keyboard from the top of the page.
    await page.evaluate(() => (document.getElementById('page_main') as HTMLElement).focus());
    await page.keyboard.press('Tab');
    await expect(focused()).resolves.toMatchObject({ id: 'chat_toggle', tag: 'BUTTON' });
    await page.keyboard.press('Space');
    await expect(focused()).resolves.toMatchObject({ id: 'c_question' });
    await page.keyboard.type(MCP);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#c_answer article[data-state="answered"]');
    // Forward from the button: "new conversation" is not there yet (no-JS only), the sources are above.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    f = await focused();
    expect(f.tag).toBe('A');
    expect(f.text).toContain('mcp.md');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/docs\/mcp\.md#[a-z0-9-]+$/);
    await page.waitForFunction(() => document.activeElement?.id === decodeURIComponent(location.hash.slice(1)));
    // No trap: Escape closes the panel from inside it and gives focus back to the toggle.
    await page.evaluate(() => (document.getElementById('c_question') as HTMLElement).focus());
    await page.keyboard.press('Escape');
    await expect(focused()).resolves.toMatchObject({ id: 'chat_toggle' });
    await expect(page.locator('#chat_panel').isHidden()).resolves.toBe(true);
    expect(problems).toEqual([]);
  });

  it('admin: login by keyboard, then a form without its CSRF token is rejected and nothing changes', async () => {
    const { page } = await newPage();
    await page.goto('/admin/chat/params');
    await page.waitForURL('**/admin/login?next=%2Fadmin%2Fchat%2Fparams');
    await page.focus('#password');
    await page.keyboard.type(ADMIN_PASSWORD);
    await Promise.all([page.waitForURL('**/admin/chat/params'), page.keyboard.press('Enter')]);
    await page.fill('#p_k', '3');
    await page.evaluate(() => document.querySelector('form[action="/admin/chat/params"] input[name="_csrf"]')?.remove());
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/admin/chat/params') && r.request().method() === 'POST'), page.click('form[action="/admin/chat/params"] button')]);
    expect(response.status()).toBe(403);
    expect(srv.pages.chatConfig.get()).toBeUndefined();
    // With the token the same form saves.
    await page.goto('/admin/chat/params');
    await page.fill('#p_k', '3');
    await Promise.all([page.waitForURL('**/admin/chat/params?saved=1'), page.click('form[action="/admin/chat/params"] button')]);
    expect(srv.pages.chatConfig.get()?.settings.k).toBe(3);
    await srv.pages.chatConfig.reset();
  });

  it('a hostile document (<script>, onerror, javascript:, prompt injection) runs nothing and does not move the guard', async () => {
    const { page, problems } = await newPage();
    await page.goto('/docs/injection.md');
    await page.click('#chat_toggle');
    await page.fill('#c_question', 'Quand a lieu la maintenance des serveurs ?');
    await page.click('#c_form button[type="submit"]');
    await page.waitForSelector('#c_answer article[data-state="answered"]');
    await page.locator('#c_answer a.source-link').first().click();
    const seen = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: boolean }).__pwned ?? false,
      title: document.title,
      scripts: document.querySelectorAll('#doc_view script, #chat_panel script').length,
      handlers: document.querySelectorAll('#doc_view [onerror], #doc_view [onclick], #doc_view a[href^="javascript:"]').length,
    }));
    expect(seen).toEqual({ pwned: false, title: 'Note de maintenance — palabre', scripts: 0, handlers: 0 });
    expect(problems.filter((p) => /pwned/i.test(p))).toEqual([]);

    // The guard: the same out-of-scope question is refused with and without the hostile document.
    const clean = mkdtempSync(join(tmpdir(), 'palabre-clean-'));
    cpSync(FIXTURE_CORPUS, clean, { recursive: true });
    rmSync(join(clean, 'injection.md'));
    const other = await startPagesServer({ corpus: clean });
    try {
      for (const s of [srv, other]) {
        const settings = s.assistant.defaults();
        const res = await s.assistant.ask({ question: OUT_OF_SCOPE, settings });
        expect(res.state).toBe('outOfScope');
        expect(res.sources).toEqual([]);
        const top = s.assistant.search(OUT_OF_SCOPE, settings.k)[0]?.score ?? 0;
        expect(top).toBeLessThan(settings.threshold);
      }
    } finally {
      await other.close();
      rmSync(clean, { recursive: true, force: true });
    }
  });
});
