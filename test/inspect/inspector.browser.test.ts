import { AxeBuilder } from '@axe-core/playwright';
import type { Browser } from 'playwright-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuth } from '../../core/auth.js';
import { chromiumRequirement, launchChromium } from '../support/browser.js';
import { ADMIN_PASSWORD, startInspectServer, type InspectServer } from './support.js';

const JWT_SECRET = 'inspector-browser-jwt-secret-0123456789';

/**
 * The inspector in Chromium against a real surface: a T2 live session opened over its real
 * WebSocket (text mode, offline provider) appears on /inspect, its highlighted state follows the
 * frames the candidate sends, and neither the page nor its socket ever carries the candidate's JWT.
 */
describe.skipIf(!chromiumRequirement.ok)(`inspector in Chromium (${chromiumRequirement.reason})`, () => {
  let srv: InspectServer;
  let browser: Browser;
  beforeAll(async () => {
    srv = await startInspectServer(
      [
        () => import('../../actors/corrections/surface.js').then((m) => m.correctionsSurface),
        () => import('../../actors/t2/surface.js').then((m) => m.t2Surface),
        () => import('../../actors/inspect/surface.js').then((m) => m.inspectSurface),
      ],
      // Idle time is not what this test is about: on a busy machine it outlasts the default 60 s.
      { JWT_SECRET, T2_IDLE_TIMEOUT_MS: '3600000' },
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  it('shows a live T2 session, follows its state over the real transport, leaks no secret, axe clean', async () => {
    const context = await browser.newContext({ baseURL: srv.url });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    const frames: string[] = [];
    page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));

    await page.goto('/admin/login?next=/inspect');
    await page.fill('#password', ADMIN_PASSWORD);
    await Promise.all([page.waitForURL('**/inspect'), page.click('button[type="submit"]')]);
    await page.locator('#connection', { hasText: 'Connecté' }).waitFor();

    const token = await createAuth({ JWT_SECRET, DATA_DIR: '' }).mintToken({ sub: 'cand-inspect', plan: 'premium' });
    const ws = new WebSocket(`${srv.url.replace('http', 'ws')}/t2/live?token=${encodeURIComponent(token)}&sujet=location-voiture`);
    const received: Array<Record<string, unknown>> = [];
    ws.on('message', (d, binary) => { if (!binary) received.push(JSON.parse(d.toString()) as Record<string, unknown>); });
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });

    const actor = page.locator('#actors button', { hasText: 't2live' });
    await actor.waitFor({ timeout: 15_000 });
    await page.locator('#chart svg g[data-state-id="t2live.session"]').waitFor();
    await page.locator('#chart svg g.state.active').first().waitFor();
    await expect.poll(() => page.locator('#chart-state').textContent(), { timeout: 15_000 }).toMatch(/candidate|listening|awaiting/i);
    const before = await page.locator('#chart-state').textContent();
    // The current state's description, from the machine, is written under the path; a state pointed
    // at (here by keyboard) gets its own, and every state of the chart carries one as its <title>.
    await expect.poll(() => page.locator('#chart-desc').textContent(), { timeout: 15_000 }).toContain('awaitingCandidate: Waits for the candidate to speak first');
    await page.locator('#chart svg g[data-state-id="t2live.session.live.exam.warned"]').focus();
    await expect.poll(() => page.locator('#chart-hover').textContent()).toBe('État pointé : warned: The candidate was told 30 seconds remain; then the session ends.');
    await page.locator('#chart svg g[data-state-id="t2live.evaluating"]').hover();
    await expect.poll(() => page.locator('#chart-hover').textContent()).toMatch(/^État pointé : evaluating: Waits for the grader/);
    const untitled = await page.locator('#chart svg g[data-state-id]').evaluateAll((gs) => gs.filter((g) => !g.querySelector(':scope > title')?.textContent).map((g) => g.getAttribute('data-state-id')));
    expect(untitled).toEqual([]);

    ws.send(JSON.stringify({ type: 'text', text: 'Bonjour, quel est le prix de la location pour une semaine ?' }));
    await expect.poll(() => received.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), { timeout: 20_000 }).toBe(true);
    await expect.poll(() => page.locator('#log li').count(), { timeout: 10_000 }).toBeGreaterThan(2);
    await expect.poll(async () => (await page.locator('#log').textContent()) ?? '', { timeout: 10_000 }).toContain('text');

    ws.send(JSON.stringify({ type: 'end' }));
    await expect.poll(async () => (await page.locator('#chart-state').textContent()) !== before, { timeout: 20_000 }).toBe(true);

    // Filter and pause work from the controls.
    await page.fill('#filter', 'zzz-no-such-event');
    await expect.poll(() => page.locator('#log li').count()).toBe(0);
    await page.fill('#filter', '');
    await page.click('#pause');
    await expect(page.locator('#pause').getAttribute('aria-pressed')).resolves.toBe('true');

    const html = await page.content();
    expect(html).not.toContain(token);
    expect(frames.join('\n')).not.toContain(token);
    expect(frames.length).toBeGreaterThan(0);

    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    expect(problems).toEqual([]);
    ws.close();
    await context.close();
  }, 90_000);
});
