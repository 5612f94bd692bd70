import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AxeBuilder } from '@axe-core/playwright';
import express from 'express';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../machines/correctionReport.js';
import { createCorrectionService } from '../../actors/corrections/service.js';
import { correctionsSurface } from '../../actors/corrections/surface.js';
import { createT2Surface } from '../../actors/t2/surface.js';
import { createAuth } from '../../core/auth.js';
import type { RunningSurface } from '../../core/surfaceContract.js';
import { chromiumRequirement, launchChromium } from '../support/browser.js';
import { makeContext, T1_TEXTE } from './support.js';
import { surfaceMounter } from '../../core/server.js';

/**
 * The written-practice page in Chromium, offline grading, at 1280 px and at 375 px: a candidate
 * picks a subject at /ee, writes with the word counter and the timer (the page's clock is
 * Playwright's, moved by the test), is told in French why a too-short or an English text is
 * refused, submits, reads the report (score, NCLC and its meaning, each error quoted in the text),
 * finds the production in « Mes séances » beside the oral sessions and reopens it; another
 * candidate cannot. Every state is axe-clean and nothing is wider than the viewport.
 */

const ENGLISH = 'Hello everyone! I would like to invite you to my birthday party next Saturday evening at my house. There will be food, music and games, and you can bring your friends if you want. Please tell me before Thursday if you can come, so that I know how much food I should buy. See you soon!';
const SUBJECT = 'ee-t1-travaux-voisins';

describe.skipIf(!chromiumRequirement.ok)(`written practice /ee in Chromium (${chromiumRequirement.reason})`, () => {
  let browser: Browser;
  let env: ReturnType<typeof makeContext>;
  let server: Server;
  let base: string;
  const running: RunningSurface[] = [];
  const contexts: BrowserContext[] = [];
  let mint: (sub: string) => Promise<string>;

  beforeAll(async () => {
    env = makeContext();
    const app = express();
    server = createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The corrections surface (the page, its routes, the grading) and T2 (« Mes séances »), on one context.
    const mount = surfaceMounter({ app, server });
    running.push(await correctionsSurface.start(env.ctx));
    mount('corrections', running[running.length - 1]!);
    running.push(await createT2Surface().start(env.ctx));
    mount('t2', running[running.length - 1]!);
    const auth = createAuth(env.config);
    mint = (sub) => auth.mintToken({ sub, plan: 'free' });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    for (const r of running.reverse()) await r.stop();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    env.close();
  });

  async function newPage(width: number): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ baseURL: base, viewport: { width, height: 800 } });
    contexts.push(context);
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of (40[14]|422)/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    return { page, problems };
  }

  /** axe (WCAG 2.1 A/AA) on the current state, and nothing wider than the viewport. */
  async function check(page: Page, width: number, state: string): Promise<void> {
    const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(result.violations.map((v) => `${state} @${width}px ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${state} @${width}px scrollWidth`).toBeLessThanOrEqual(width);
  }

  const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

  for (const width of [1280, 375]) {
    it(`writes, submits and rereads a production at ${width} px`, async () => {
      const sub = `cand-ee-${width}`;
      const { page, problems } = await newPage(width);
      await page.clock.install();

      // The home page and the T2 pages lead to /ee.
      await page.goto('/');
      expect(await page.locator('main a[href="/ee"]').count()).toBeGreaterThan(0);
      await page.goto('/t2/sujets');
      expect(await page.locator('main a[href="/ee"]').count()).toBe(1);
      await page.goto('/ee');
      expect(await page.locator('h2').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('Tâche 1'), expect.stringContaining('Tâche 2'), expect.stringContaining('Tâche 3')]));
      await check(page, width, '/ee');
      await Promise.all([page.waitForURL(`**/ee/sujets/${SUBJECT}`), page.click(`a[href="/ee/sujets/${SUBJECT}"]`)]);

      // The host platform hands the token over in the address (a new document: the hash alone would not reload).
      await page.goto('/ee');
      await page.goto(`/ee/sujets/${SUBJECT}#token=${await mint(sub)}`);
      expect(page.url()).not.toContain('token');
      await expect(page.textContent('#t2-signin-status')).resolves.toContain(sub);
      expect(await page.textContent('#ee-timer')).toBe('10:00');
      expect(await page.textContent('#ee-count-state')).toBe('Commencez à écrire.');
      await check(page, width, 'form');

      // A too-short text: counted as the server counts, told so, refused with a French message, not stored.
      await page.fill('#ee-text', 'Bonjour à tous, je fais des travaux.');
      expect(await page.textContent('#ee-count')).toBe('7');
      expect(await page.textContent('#ee-count-state')).toContain('encore 53 mots au moins');
      expect(await page.textContent('#ee-announce')).toContain('encore 53 mots');
      await page.click('#ee-submit');
      await page.waitForSelector('#ee-form-error:not([hidden])');
      expect(await page.textContent('#ee-form-error')).toContain('Votre texte compte 7 mots : il en faut au moins 20');
      expect(await focusedId(page)).toBe('ee-form-error');
      expect(await page.getAttribute('#ee-text', 'aria-invalid')).toBe('true');
      await check(page, width, 'too short');

      // An English text: refused as not French.
      await page.fill('#ee-text', ENGLISH);
      await page.click('#ee-submit');
      await page.waitForSelector('#ee-form-error:not([hidden])');
      expect(await page.textContent('#ee-form-error')).toContain('n\'est pas rédigée en français');
      expect(await (await page.request.get('/api/ee/productions', { headers: { authorization: `Bearer ${await mint(sub)}` } })).json()).toEqual({ productions: [] });

      // The timer (started at the first keystroke) warns at one minute left and at the end.
      await page.clock.fastForward('09:02');
      await expect.poll(() => page.textContent('#ee-timer')).toMatch(/^0:5\d$/);
      expect(await page.textContent('#ee-announce')).toBe('Plus qu’une minute.');
      await page.clock.fastForward('01:00');
      await expect.poll(() => page.textContent('#ee-timer')).toBe('0:00');
      expect(await page.textContent('#ee-announce')).toContain('Le temps conseillé est écoulé');

      // The real text: within the task's limits, then submitted; the report takes the focus.
      await page.fill('#ee-text', T1_TEXTE);
      const shown = Number(await page.textContent('#ee-count'));
      expect(await page.getAttribute('#ee-count-state', 'data-state')).toBe('ok');
      expect(await page.textContent('#ee-announce')).toContain('dans les limites de la tâche (60 à 120)');
      await check(page, width, 'form filled');
      await page.click('#ee-submit');
      await page.waitForSelector('#ee-report:not([hidden])');
      expect(await focusedId(page)).toBe('ee-report-title');
      expect(await page.isHidden('#ee-write')).toBe(true);
      const report = (await page.textContent('#ee-report-body')) ?? '';
      expect(await page.textContent('.report-score')).toMatch(/^\d+(,\d)? \/ 20$/);
      expect(await page.textContent('.report-nclc-meaning')).toMatch(/niveau/i);
      expect(report).toContain(`Votre texte compte ${shown} mots.`);
      for (const name of ['Adéquation à la tâche', 'Cohérence et cohésion', 'Compétence lexicale', 'Compétence grammaticale']) expect(report).toContain(name);
      // Each error quoted from the text, explained, and marked in « Votre texte ».
      expect(await page.locator('.report-errors li').count()).toBeGreaterThan(0);
      expect(await page.locator('.report-errors q').allTextContents()).toContain('Je sais pas');
      expect(report).toContain('Vous avez écrit : ');
      expect(await page.locator('.report-text mark').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('Je sais pas')]));
      expect(await page.locator('#ee-report-body ol').last().locator('li').count()).toBeGreaterThan(0);
      await check(page, width, 'report');
      const url = (await page.getAttribute('#ee-report-link a', 'href')) ?? '';
      expect(url).toMatch(/^\/ee\/productions\/[0-9a-f-]{36}$/);

      // « Mes séances »: the written production beside the oral sessions, then reopened at its stable URL.
      await page.goto('/t2/seances');
      await page.waitForSelector('#ee-productions-list li');
      expect(await page.textContent('#ee-productions-list')).toContain('Tâche 1 — Prévenir ses voisins de travaux');
      expect(await page.textContent('#ee-productions-list')).toContain(`${shown} mots`);
      expect(await page.textContent('#t2-sessions-status')).toContain('Aucune séance');
      await check(page, width, 'Mes séances');
      await Promise.all([page.waitForURL(`**${url}`), page.click(`#ee-productions-list a[href="${url}"]`)]);
      await page.waitForSelector('#ee-production-body .report-errors');
      expect(await page.textContent('#ee-production-title')).toBe('Rapport — Tâche 1 — Prévenir ses voisins de travaux');
      expect(await page.textContent('#ee-production-body')).toContain('Écrivez un message à vos voisins');
      // The text as written, line breaks kept (the errors' numbers are <sup> marks).
      expect(await page.evaluate(() => {
        const copy = document.querySelector('#ee-production-body .report-text')!.cloneNode(true) as HTMLElement;
        copy.querySelectorAll('sup').forEach((n) => n.remove());
        return copy.textContent;
      })).toBe(T1_TEXTE);
      expect(await page.locator('#ee-production-body .report-errors q').allTextContents()).toContain('Je sais pas');
      await check(page, width, 'reopened report');

      // Another candidate with the same address reads nothing of it.
      const other = await newPage(width);
      await other.page.goto(`${url}#token=${await mint(`intrus-${width}`)}`);
      await expect.poll(() => other.page.textContent('#ee-production-status')).toContain('introuvable');
      expect(await other.page.locator('#ee-production-body *').count()).toBe(0);
      expect([...problems, ...other.problems]).toEqual([]);
    }, 90_000);
  }

  it('renders what a report carries beyond the known fields: a criterion’s `details` folded under its justification (375 px)', async () => {
    // A stored report whose criteria carry the figures behind their justification, as a grading may attach them.
    const service = createCorrectionService(env.ctx);
    const graded = await service.correctWritten({ candidateId: 'cand-details', tache: 'EE_T1', consigne: 'Écrivez un message à vos voisins.', texte: T1_TEXTE });
    const report = structuredClone(graded.report) as Report;
    report.criteres.adequation_tache!.details = ['88 mots (limites 60 à 120)', 'consigne reprise'];
    report.criteres.competence_grammaticale!.details = ['1 erreur relevée', 'densité 0,9 pour 100 mots'];
    delete report.criteres.coherence_cohesion!.details;
    const id = await service.store.save({ candidateId: 'cand-details', production: { epreuve: 'EE', tache: 'EE_T1', consigne: 'Écrivez un message à vos voisins.', texte: T1_TEXTE }, report, meta: { sujet: SUBJECT, titre: 'Prévenir ses voisins de travaux' } });
    const { page, problems } = await newPage(375);
    await page.goto('/ee');
    await page.goto(`/ee/productions/${id}#token=${await mint('cand-details')}`);
    await page.waitForSelector('#ee-production-body .report-details');
    const row = page.locator('tr[data-critere="adequation_tache"]');
    expect(await row.locator('details summary').textContent()).toBe('Les chiffres derrière cette note');
    expect(await row.locator('details').getAttribute('open')).toBeNull();
    await row.locator('details summary').click();
    expect(await row.locator('details li').allTextContents()).toEqual(['88 mots (limites 60 à 120)', 'consigne reprise']);
    expect(await page.locator('tr[data-critere="competence_grammaticale"] details li').allTextContents()).toEqual(['1 erreur relevée', 'densité 0,9 pour 100 mots']);
    expect(await page.locator('tr[data-critere="coherence_cohesion"] details').count()).toBe(0);
    await check(page, 375, 'report with details');
    expect(problems).toEqual([]);
  }, 60_000);
});
