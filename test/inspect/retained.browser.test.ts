import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuth } from '../../core/auth.js';
import { chromiumRequirement, launchChromium } from '../support/browser.js';
import { makeCorpus } from '../docs/fixtures.js';
import { ADMIN_PASSWORD, startInspectServer, type InspectServer } from './support.js';

const JWT_SECRET = 'inspector-retained-jwt-secret-0123456789';

async function axeAt(page: Page): Promise<string[]> {
  const out: string[] = [];
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    out.push(...result.violations.map((v) => `${width}px ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return out;
}

/**
 * /inspect shows every conversation: docs chats that lived for a moment stay listed (greyed, final
 * state, whole log) after they end; actors have readable names; the global log filters by
 * machine; the state is written as a path; the context is a tree; the chart zooms.
 * SCREENSHOTS=1 writes docs/img/inspector.png.
 */
describe.skipIf(!chromiumRequirement.ok)(`inspector keeps ended conversations (${chromiumRequirement.reason})`, () => {
  let srv: InspectServer;
  let browser: Browser;
  let corpus: string;
  beforeAll(async () => {
    corpus = makeCorpus();
    srv = await startInspectServer(
      [
        () => import('../../actors/docs/surface.js').then((m) => m.docsSurface),
        () => import('../../actors/t2/surface.js').then((m) => m.t2Surface),
        () => import('../../actors/inspect/surface.js').then((m) => m.inspectSurface),
      ],
      // The T2 session sits without frames for the whole test, which lasts longer than the default
      // idle timeout (60 s) on a busy machine: it would end, and the test would depend on load.
      { JWT_SECRET, CORPUS_DIR: corpus, CHAT_PROVIDER: 'offline', T2_IDLE_TIMEOUT_MS: '3600000' },
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
    rmSync(corpus, { recursive: true, force: true });
  });

  it('lists a chat actor that has already ended, greyed, with its final state, log and context; filters by machine; zooms', async () => {
    const context = await browser.newContext({ baseURL: srv.url, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto('/admin/login?next=/inspect');
    await page.fill('#password', ADMIN_PASSWORD);
    await Promise.all([page.waitForURL('**/inspect'), page.click('button[type="submit"]')]);
    await page.locator('#connection', { hasText: 'Connecté' }).waitFor();

    // A live T2 session, to be named by its candidate and subject.
    const token = await createAuth({ JWT_SECRET, DATA_DIR: '' }).mintToken({ sub: 'cand-7f3e9b21', plan: 'premium' });
    const ws = new WebSocket(`${srv.url.replace('http', 'ws')}/t2/live?token=${encodeURIComponent(token)}&sujet=club-de-sport`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });

    // Three docs questions: each chat actor starts and ends within the request.
    for (const question of ['Progress token types?', 'Combien de temps le dossier médical est-il conservé ?', 'Quels outils MCP existent ?']) {
      const res = await fetch(`${srv.url}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question }) });
      expect(res.status).toBe(200);
    }
    expect(srv.server.ctx.runtime.countByKind().chat ?? 0).toBe(0); // all ended

    const ended = page.locator('#actors button.ended[data-kind="chat"]');
    await expect.poll(() => ended.count(), { timeout: 10_000 }).toBe(3);
    expect(await ended.first().textContent()).toMatch(/^chat · question [0-9a-f]{4} · « .+ »terminée il y a \d+ sétat final : /);
    await expect.poll(() => page.locator('#actors button[data-kind="t2live"]').textContent(), { timeout: 10_000 }).toContain('t2live · candidate cand-7f3e9b21 · Inscription');

    await ended.first().click();
    await expect.poll(() => page.locator('#chart-state').textContent()).toMatch(/^chat · question .+ — terminée ; état final : \S+/);
    await page.locator('#chart svg g.state.active').first().waitFor();
    // Its whole event log, and the context as a collapsible tree.
    await page.selectOption('#scope', 'selected');
    await expect.poll(() => page.locator('#log li').count(), { timeout: 10_000 }).toBeGreaterThan(3);
    expect(await page.locator('#context details').count()).toBeGreaterThan(1);
    expect(await page.textContent('#context')).toContain('question');

    // The global log across conversations, filtered by machine.
    await page.selectOption('#scope', 'all');
    await page.selectOption('#machine', 'chat');
    const kinds = await page.locator('#log li').evaluateAll((lis) => [...new Set(lis.map((li) => (li as HTMLElement).dataset.kind))]);
    expect(kinds).toEqual(['chat']);
    await page.selectOption('#machine', 't2live');
    await expect.poll(() => page.locator('#log li').evaluateAll((lis) => [...new Set(lis.map((li) => (li as HTMLElement).dataset.kind))])).toEqual(['t2live']);
    await page.selectOption('#machine', '');

    // Natural size, then zoom and pan.
    const width = async () => Number(await page.locator('#chart svg').getAttribute('width'));
    await page.click('#zoom-reset');
    const natural = await width();
    await page.click('#zoom-in');
    expect(await page.textContent('#zoom-level')).toBe('125 %');
    expect(await width()).toBe(Math.round(natural * 1.25));
    await page.click('#zoom-reset');
    expect(await width()).toBe(natural);

    // The live T2 session: state written as a path.
    await page.locator('#actors button[data-kind="t2live"]').click();
    await expect.poll(() => page.locator('#chart-state').textContent(), { timeout: 10_000 }).toMatch(/^t2live · candidate cand-7f3e9b21 · .+ — état : \S+/);
    expect(await axeAt(page)).toEqual([]);
    if (process.env.SCREENSHOTS) {
      mkdirSync('docs/img', { recursive: true });
      await page.locator('#actors button.ended[data-kind="chat"]').first().click();
      await page.selectOption('#scope', 'all');
      await page.screenshot({ path: join('docs/img', 'inspector.png'), fullPage: true });
    }
    expect(problems).toEqual([]);
    ws.close();
    await context.close();
  }, 90_000);
});
