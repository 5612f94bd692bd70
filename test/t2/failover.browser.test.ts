import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumRequirement, launchChromium } from '../support/browser.js';
import { RecordingCorrections, startT2, type T2Env } from './support.js';

/**
 * The candidate's page when the instance holding its session stops (Chromium, text mode): two
 * instances on one SQLite file behind a TCP front that, like the load balancer, sends new
 * connections to the instance still up. The stopping instance hands the session over (4503): the
 * page says « Connexion perdue, reprise… », reconnects, the other instance takes the session over,
 * the page says « Séance reprise » with the transcript back, and the dialogue goes on to its report.
 */
describe.skipIf(!chromiumRequirement.ok)(`T2 page across a hand-over (${chromiumRequirement.reason})`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('a stop of the instance mid-dialogue: the page reconnects to the other, is resumed with its transcript, and ends with its report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-t2-failover-page-'));
    const corrections = new RecordingCorrections();
    const envs: T2Env[] = [];
    const sockets = new Set<Socket>();
    let front: Server | undefined;
    try {
      for (const name of ['a', 'b']) envs.push(await startT2({ dir, corrections, env: { INSTANCE_ID: name } }));
      const [a, b] = envs as [T2Env, T2Env];
      let target = a;
      front = createServer((client) => {
        const up = connect(Number(new URL(target.baseUrl).port), '127.0.0.1');
        for (const s of [client, up]) {
          sockets.add(s);
          s.on('error', () => undefined);
          s.on('close', () => sockets.delete(s));
        }
        client.pipe(up).pipe(client);
      });
      await new Promise<void>((resolve) => front!.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;

      const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
      context.setDefaultTimeout(15_000);
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
      await page.goto(`/t2/sujets/club-de-sport#token=${await a.mint('premium', 'cand-page')}`);
      await page.click('#t2-start-button');
      await page.waitForSelector('#t2-text-form:not([hidden])');
      await page.fill('#t2-text', 'Bonjour, quels sont vos horaires ?');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]');

      // A deploy: `a` stops; the front sends new connections to `b`, as the balancer does.
      target = b;
      const stopped = a.surface.stop();
      await page.waitForSelector('#t2-reconnecting:has-text("Séance reprise")');
      await stopped;
      expect(await page.locator('#t2-transcript li').count()).toBe(2);
      expect(await page.isDisabled('#t2-end')).toBe(false);
      const violations = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      expect(violations.violations.map((v) => v.id)).toEqual([]);
      await page.fill('#t2-text', 'Combien coûte l’abonnement ?');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]').count()).toBe(2);
      await page.click('#t2-end');
      await page.click('#t2-end-confirm');
      await page.waitForSelector('#t2-report:not([hidden])');
      // Graded once, on both questions, by the instance that took the session over.
      expect(corrections.oral).toHaveLength(1);
      expect(corrections.oral[0]!.transcript.filter((t) => t.speaker === 'candidate').map((t) => t.text)).toEqual(['Bonjour, quels sont vos horaires ?', 'Combien coûte l’abonnement ?']);
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => (front ? front.close(() => resolve()) : resolve()));
      for (const e of envs.reverse()) await e.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
