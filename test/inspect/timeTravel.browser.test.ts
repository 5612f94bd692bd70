import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeOf } from '../../core/store/appStore.js';
import { chromiumRequirement, launchChromium } from '../support/browser.js';
import { ADMIN_PASSWORD, startInspectServer, type InspectServer } from './support.js';
import { recordedFixtures, storeJournals } from './recordedFixtures.js';

async function axeViolations(page: Page): Promise<string[]> {
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Time travel in Chromium: the admin opens /inspect, follows the link of a recorded Skull
 * conversation (loaded in the server's SQLite file from test/recorded/), moves the slider with the
 * keyboard and sees the active state and the step change; axe is clean at each step.
 */
describe.skipIf(!chromiumRequirement.ok)(`inspector time travel in Chromium (${chromiumRequirement.reason})`, () => {
  let srv: InspectServer;
  let browser: Browser;
  const skull = recordedFixtures().find((j) => j.machine === 'skull')!;

  beforeAll(async () => {
    srv = await startInspectServer([() => import('../../actors/inspect/surface.js').then((m) => m.inspectSurface)]);
    await storeJournals(storeOf(srv.server.ctx), recordedFixtures());
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  it('scrubs a recorded Skull conversation with the keyboard, axe clean at each step', async () => {
    const context = await browser.newContext({ baseURL: srv.url });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));

    await page.goto('/admin/login?next=/inspect');
    await page.fill('#password', ADMIN_PASSWORD);
    await Promise.all([page.waitForURL('**/inspect'), page.click('button[type="submit"]')]);
    const link = page.locator('#recorded a', { hasText: skull.id });
    await link.waitFor();
    expect(await page.locator('#recorded a').count()).toBe(4);
    expect(await axeViolations(page)).toEqual([]);

    await Promise.all([page.waitForURL(`**/inspect/journal/${skull.id}`), link.click()]);
    await page.locator('#chart svg g[data-state-id="skull.turn.idle"]').waitFor();
    await expect.poll(() => page.locator('#step-now').textContent()).toBe('Étape 0 — xstate.init → turn.idle · debounce.quiet');
    expect(await page.locator('#chart svg g.state.active').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-state-id')).sort())).toEqual(['skull.debounce', 'skull.debounce.quiet', 'skull.turn', 'skull.turn.idle']);
    expect(await page.locator('#steps button').count()).toBe(skull.steps.length);
    expect(await axeViolations(page)).toEqual([]);

    // The slider, by keyboard: step 1 is the request, the Skull starts answering.
    await page.locator('#step').focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.locator('#step-now').textContent()).toBe('Étape 1 — ai.request → turn.responding.attempting · debounce.quiet');
    expect(await page.locator('#step-pos').textContent()).toBe('1 / 3');
    expect(await page.locator('#chart svg g[data-state-id="skull.turn.responding.attempting"]').getAttribute('class')).toMatch(/\bactive\b/);
    expect(await page.locator('#chart svg g[data-state-id="skull.turn.idle"]').getAttribute('class')).not.toMatch(/\bactive\b/);
    expect(await page.locator('#steps button[aria-pressed="true"]').textContent()).toContain('ai.request');
    expect(await page.locator('#step-detail').textContent()).toContain('generate');
    expect(await page.locator('#step-move').textContent()).toBe('Transition (en orange) : ai.request, turn.idle → turn.responding');
    expect(await axeViolations(page)).toEqual([]);

    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.locator('#step-now').textContent()).toBe('Étape 2 — generate.done → turn.publishing · debounce.quiet');
    expect(await page.locator('#step-detail').textContent()).toContain('publishReply');
    expect(await axeViolations(page)).toEqual([]);

    // The step list, by keyboard: focus an item, arrows move, Enter selects.
    await page.locator('#steps button[data-k="3"]').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#step-now').textContent()).toBe('Étape 3 — publish.done → turn.idle · debounce.quiet');
    expect(await page.locator('#step').inputValue()).toBe('3');
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => page.locator('#step-now').textContent()).toMatch(/^Étape 2 — generate\.done/);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-k'))).toBe('2');

    // The coverage view: the request path this recording took, counted.
    const row = page.locator('#coverage tbody tr', { hasText: 'turn.idle —ai.request→ turn.responding' }).first();
    await row.waitFor();
    expect(await row.locator('td').nth(1).textContent()).toBe('1');
    await expect.poll(() => page.locator('#cov-summary').textContent()).toMatch(/^skull : 1 conversation\(s\) enregistrée\(s\)/);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
