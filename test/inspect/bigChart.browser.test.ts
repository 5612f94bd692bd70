import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuth } from '../../core/auth.js';
import { chromiumRequirement, launchChromium } from '../support/browser.js';
import { ADMIN_PASSWORD, startInspectServer, type InspectServer } from './support.js';

const JWT_SECRET = 'inspector-bigchart-jwt-secret-0123456789';
const CANDIDATE = 'cand-inspect-8c1f2d9e';

async function axe(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations.map((v) => `${page.viewportSize()?.width}px ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The chart box and the SVG in it: the SVG's drawn width, the box's inner width, its scroll width. */
const chartFit = (page: Page) =>
  page.evaluate(() => {
    const box = document.getElementById('chart')!;
    const svg = box.querySelector('svg')!;
    return { svg: Number(svg.getAttribute('width')), natural: svg.viewBox.baseVal.width, box: box.clientWidth, scroll: box.scrollWidth, page: document.documentElement.scrollWidth };
  });

/**
 * The inspector on the biggest chart (t2live, ~4,700 px wide), at 1280 and 375 px: it opens fitted
 * to its box and zooms back and forth; the transition last taken is drawn and named; the event log
 * has one entry per event (the event and the state it led to together) with a legend; the candidate
 * is named by their whole id. Axe clean in each state.
 */
describe.skipIf(!chromiumRequirement.ok)(`inspector: big charts, last transition, grouped log (${chromiumRequirement.reason})`, () => {
  let srv: InspectServer;
  let browser: Browser;
  beforeAll(async () => {
    srv = await startInspectServer(
      [
        () => import('../../actors/corrections/surface.js').then((m) => m.correctionsSurface),
        () => import('../../actors/t2/surface.js').then((m) => m.t2Surface),
        () => import('../../actors/inspect/surface.js').then((m) => m.inspectSurface),
      ],
      { JWT_SECRET },
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  for (const width of [1280, 375]) {
    it(`at ${width} px: fitted chart, zoom, last transition, one log entry per event with a legend, whole candidate id`, async () => {
      const context = await browser.newContext({ baseURL: srv.url, viewport: { width, height: 900 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto('/admin/login?next=/inspect');
      await page.fill('#password', ADMIN_PASSWORD);
      await Promise.all([page.waitForURL('**/inspect'), page.click('button[type="submit"]')]);
      await page.locator('#connection', { hasText: 'Connecté' }).waitFor();

      const sub = `${CANDIDATE}-${width}`;
      const token = await createAuth({ JWT_SECRET, DATA_DIR: '' }).mintToken({ sub, plan: 'premium' });
      const ws = new WebSocket(`${srv.url.replace('http', 'ws')}/t2/live?token=${encodeURIComponent(token)}&sujet=location-voiture&mode=text`);
      const received: Array<Record<string, unknown>> = [];
      ws.on('message', (d, binary) => {
        if (!binary) received.push(JSON.parse(d.toString()) as Record<string, unknown>);
      });
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      await expect.poll(() => received.some((m) => m.type === 'state' && m.value === 'listening'), { timeout: 30_000 }).toBe(true);

      // Named by the whole candidate id, not its last four characters.
      const actor = page.locator('#actors button[data-kind="t2live"]', { hasText: sub });
      await actor.waitFor({ timeout: 30_000 });
      await actor.click();
      await expect.poll(() => page.locator('#chart-state').textContent(), { timeout: 30_000 }).toContain(`candidate ${sub}`);
      await page.locator('#chart svg g[data-state-id="t2live.session"]').waitFor();

      // Fitted: the whole chart in its box, nothing wider than the screen.
      let fit = await chartFit(page);
      expect(fit.natural).toBeGreaterThan(3000);
      expect(fit.svg).toBeLessThanOrEqual(fit.box);
      expect(fit.scroll).toBeLessThanOrEqual(fit.box + 1);
      expect(fit.page).toBeLessThanOrEqual(width);
      const fittedLevel = await page.textContent('#zoom-level');
      expect(Number(fittedLevel!.replace(/\D/g, ''))).toBeLessThan(100);
      expect(await axe(page)).toEqual([]);
      // Zoom in, then back to the fitted view.
      await page.click('#zoom-in');
      expect((await chartFit(page)).svg).toBeGreaterThan(fit.svg);
      await page.click('#zoom-reset');
      expect((await chartFit(page)).svg).toBe(Math.round(fit.natural));
      expect(await page.textContent('#zoom-level')).toBe('100 %');
      await page.click('#zoom-fit');
      fit = await chartFit(page);
      expect(fit.svg).toBeLessThanOrEqual(fit.box);
      expect(await page.textContent('#zoom-level')).toBe(fittedLevel);

      // One candidate message: one log entry for it (the event and its new state together).
      ws.send(JSON.stringify({ type: 'text', text: 'Bonjour, quel est le prix de la location pour une semaine ?' }));
      await expect.poll(() => received.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), { timeout: 45_000, message: `the interlocutor's reply; received ${JSON.stringify(received)}` }).toBe(true);
      await page.selectOption('#scope', 'selected');
      const textEntries = page.locator('#log li[data-event-type="client.text"]');
      await expect.poll(() => textEntries.count(), { timeout: 10_000 }).toBe(1);
      expect(await textEntries.first().getAttribute('data-changed')).toBe('true');
      expect(await textEntries.first().textContent()).toMatch(/client\.text · t2live · candidate .+ → .*interlocutorTurn/);
      expect(await page.isVisible('#log-legend')).toBe(true);
      expect(await page.textContent('#log-legend')).toContain('état inchangé');

      // The transition last taken is drawn (orange) and named; every marked edge is that event's.
      await expect.poll(() => page.locator('#chart svg path.edge.last').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      const named = /Dernière transition \(en orange\) : (\S+), /.exec((await page.textContent('#chart-last')) ?? '')?.[1];
      expect(named).toBeDefined();
      const marked = await page.locator('#chart svg .last').evaluateAll((els) => els.map((e) => e.getAttribute('data-event')));
      expect(new Set(marked)).toEqual(new Set([named]));
      expect(await axe(page)).toEqual([]);

      // The end: grading then saving; the last transition follows (the save's completion).
      ws.send(JSON.stringify({ type: 'end' }));
      await expect.poll(() => page.textContent('#chart-last'), { timeout: 60_000 }).toContain('xstate.done.actor.save');
      const last = await page.locator('#chart svg path.edge.last').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-source')}→${e.getAttribute('data-target')}`));
      expect(last).toEqual(['t2live.saving→t2live.ended']);
      // Each of those events is one log entry, its new state on the same line.
      for (const type of ['client.end', 'xstate.done.actor.finishSession', 'xstate.done.actor.save']) {
        await expect.poll(() => page.locator(`#log li[data-event-type="${type}"]`).count(), { timeout: 10_000 }).toBe(1);
        expect(await page.locator(`#log li[data-event-type="${type}"]`).getAttribute('data-changed')).toBe('true');
      }
      expect(await axe(page)).toEqual([]);
      expect(problems).toEqual([]);
      ws.close();
      await context.close();
    }, 180_000);
  }
});
