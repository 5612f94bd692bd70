import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumRequirement, launchChromium } from '../support/browser.js';
import { modelReport, seedSession } from './reportFixture.js';
import { startT2, type T2Env } from './support.js';

/**
 * The candidate's T2 pages in Chromium, text mode (offline interlocutor): Start refused while a
 * session runs, a reload or a dropped connection mid-session resumed (or, past the grace period, explained), « Mes séances » opening a past report, the
 * report's readable sections, the dev sign-in, the Premium refusal with what helps — each state
 * axe-clean at 1280 px and 375 px. SCREENSHOTS=1 writes docs/img/t2-report.png.
 */

const WIDTHS = [1280, 375] as const;

async function axeAt(page: Page): Promise<string[]> {
  const out: string[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    out.push(...result.violations.map((v) => `${width}px ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return out;
}

/** Chromium logs each reconnect the test's "unreachable server" refuses: expected, not a page error. */
const notRefusedReconnect = (p: string): boolean => !/WebSocket connection to '.*resume=1' failed: Connection closed before receiving a handshake response/.test(p);

describe.skipIf(!chromiumRequirement.ok)(`T2 candidate pages in Chromium (${chromiumRequirement.reason})`, () => {
  let browser: Browser;
  let env: T2Env | undefined;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close().catch(() => undefined);
    await env?.close();
    env = undefined;
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function newPage(e: T2Env): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ baseURL: e.baseUrl, viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 40[134]/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    return { page, problems };
  }

  it('Start is refused while a session runs (one session on the server); a reload mid-session resumes it within the grace period', async () => {
    env = await startT2();
    const { page, problems } = await newPage(env);
    await page.goto(`/t2/sujets/club-de-sport#token=${await env.mint('premium', 'cand-double')}`);
    expect(page.url()).not.toContain('token');
    await expect(page.textContent('#t2-signin-status')).resolves.toContain('cand-double');
    await page.click('#t2-start-button');
    await page.waitForSelector('#t2-text-form:not([hidden])');
    expect(await page.isDisabled('#t2-start-button')).toBe(true);
    expect(await page.textContent('#t2-start-help')).toContain('en cours');
    // Even forced (Enter on the form, a scripted submit), no second session opens.
    await page.evaluate(() => (document.getElementById('t2-start') as HTMLFormElement).requestSubmit());
    await page.fill('#t2-text', 'Bonjour, quels sont vos horaires ?');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]');
    expect(env.ctx.runtime.countByKind().t2live).toBe(1);
    expect(await page.locator('#t2-transcript li').count()).toBe(2);
    expect(await axeAt(page)).toEqual([]);

    // Reload in the middle: the page reconnects with the same token and the server resumes the
    // same session (T2_RESUME_GRACE_MS), transcript and timer included.
    const timerBefore = await page.textContent('#t2-timer');
    await page.reload();
    await page.waitForSelector('#t2-reconnecting:has-text("Séance reprise")');
    expect(await page.locator('#t2-transcript li').count()).toBe(2);
    expect(await page.textContent('#t2-transcript li[data-speaker="candidate"]')).toContain('quels sont vos horaires');
    expect(await page.isHidden('#t2-interrupted')).toBe(true);
    expect(await page.isDisabled('#t2-start-button')).toBe(true);
    expect(await page.isDisabled('#t2-end')).toBe(false);
    // The exam clock kept running on the server: the timer goes on from where it was, not from 5:30.
    expect(await page.textContent('#t2-timer')).not.toBe('5:30');
    expect(timerBefore).not.toBeNull();
    expect(await axeAt(page)).toEqual([]);
    expect(env.ctx.runtime.countByKind().t2live).toBe(1);
    await page.fill('#t2-text', 'Combien coûte l’abonnement ?');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]').count()).toBe(2);
    await page.click('#t2-end');
    await page.click('#t2-end-confirm');
    await page.waitForSelector('#t2-report:not([hidden])');
    // One session, graded once, with all four turns.
    expect(env.corrections.oral).toHaveLength(1);
    expect(env.corrections.oral[0]!.transcript).toHaveLength(4);
    expect(problems).toEqual([]);
  }, 60_000);

  it('a second tab asks before taking over, and the first says why it ended; « Terminer » asks and differs from « Envoyer »; after the end no countdown, no warning, the transcript once; sign-in lasts across tabs until it expires', async () => {
    // The warning comes one second into the dialogue, so the test sees it go away at the end.
    env = await startT2({ env: { T2_EXAM_DURATION_MS: '120000', T2_WARNING_BEFORE_MS: '119000' } });
    const { page: first, problems } = await newPage(env);
    await first.goto(`/t2/sujets/club-de-sport#token=${await env.mint('premium', 'cand-tabs')}`);
    await first.click('#t2-start-button');
    await first.waitForSelector('#t2-text-form:not([hidden])');
    // « Terminer » ends the exam: it does not look like « Envoyer » (colours and border).
    const look = (sel: string) => first.$eval(sel, (b) => { const c = getComputedStyle(b); return `${c.backgroundColor}|${c.color}|${c.borderTopColor}`; });
    expect(await look('#t2-end')).not.toBe(await look('#t2-text-form button[type="submit"]'));
    await first.fill('#t2-text', 'Bonjour, quels sont vos horaires ?');
    await first.keyboard.press('Enter');
    await first.waitForSelector('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]');
    await first.waitForSelector('#t2-warning:not([hidden])');
    // « Terminer » asks first; « Continuer le dialogue » (focused) keeps the session going.
    await first.click('#t2-end');
    await first.waitForSelector('#t2-end-dialog[open]');
    expect(await first.evaluate(() => document.activeElement?.id)).toBe('t2-end-cancel');
    expect(await axeAt(first)).toEqual([]);
    await first.keyboard.press('Enter');
    expect(await first.isVisible('#t2-end-dialog')).toBe(false);
    expect(await first.evaluate(() => document.activeElement?.id)).toBe('t2-end');
    expect(await first.getAttribute('body', 'data-t2-state')).not.toBe('finishing');
    expect(env.corrections.oral).toHaveLength(0);

    // Another tab of the same browser: signed in without asking again (the token outlives the tab).
    const second = await first.context().newPage();
    second.on('pageerror', (err) => problems.push(`pageerror (second tab): ${err.message}`));
    await second.goto('/t2/sujets/club-de-sport');
    await expect.poll(() => second.textContent('#t2-signin-status')).toContain('cand-tabs');
    await second.click('#t2-start-button');
    // It asks before ending the other tab's session; nothing has ended yet.
    await second.waitForSelector('#t2-elsewhere:not([hidden])');
    expect(await second.evaluate(() => document.activeElement?.id)).toBe('t2-elsewhere-title');
    expect(await second.textContent('#t2-elsewhere-text')).toContain('autre onglet');
    expect(await second.isHidden('#t2-live')).toBe(true);
    expect(await second.isDisabled('#t2-start-button')).toBe(false);
    expect(await axeAt(second)).toEqual([]);
    await first.fill('#t2-text', 'Combien coûte l’abonnement ?');
    await first.keyboard.press('Enter');
    await expect.poll(() => first.locator('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]').count()).toBe(2);
    expect(env.corrections.oral).toHaveLength(0);
    expect(env.ctx.runtime.countByKind().t2live).toBe(1);

    // Confirmed: the second tab starts; the first says why its session ended, and shows its report.
    await second.click('#t2-takeover');
    await second.waitForSelector('#t2-text-form:not([hidden])');
    expect(await second.isHidden('#t2-elsewhere')).toBe(true);
    await first.waitForSelector('#t2-report:not([hidden])');
    expect(await first.textContent('#t2-ended-note')).toContain('une nouvelle séance a été démarrée dans un autre onglet');
    expect(await first.isVisible('#t2-ended-note')).toBe(true);
    expect(env.corrections.oral).toHaveLength(1);
    expect(env.corrections.oral[0]!.transcript).toHaveLength(4);
    // After the end: no countdown, no « Il reste … », no « Terminer », and the transcript once.
    expect(await first.isVisible('#t2-timer')).toBe(false);
    expect(await first.isVisible('#t2-warning')).toBe(false);
    expect(await first.isVisible('#t2-end')).toBe(false);
    expect(await first.locator('li:visible', { hasText: 'Combien coûte l’abonnement' }).count()).toBe(1);
    expect(await axeAt(first)).toEqual([]);

    // The second tab ends its own session through the confirmation: no « autre onglet » note there.
    await second.fill('#t2-text', 'Bonjour, le club est-il ouvert le dimanche ?');
    await second.keyboard.press('Enter');
    await second.waitForSelector('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]');
    await second.click('#t2-end');
    await second.click('#t2-end-confirm');
    await second.waitForSelector('#t2-report:not([hidden])');
    expect(await second.isHidden('#t2-ended-note')).toBe(true);
    expect(await second.isVisible('#t2-timer')).toBe(false);
    expect(await second.locator('li:visible', { hasText: 'le club est-il ouvert le dimanche' }).count()).toBe(1);
    expect(await axeAt(second)).toEqual([]);

    // « Mes séances » in a new tab: signed in, both sessions listed.
    const third = await first.context().newPage();
    await third.goto('/t2/seances');
    await expect.poll(() => third.locator('#t2-sessions-list li').count()).toBe(2);
    expect(await third.textContent('#t2-signin-status')).toContain('cand-tabs');
    expect(await axeAt(third)).toEqual([]);
    // Signing out in one tab signs the others out too.
    await third.click('#t2-signout');
    await expect.poll(() => second.textContent('#t2-signin-status')).toContain('pas connecté');
    // A kept token past its expiry is dropped, never used.
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const expired = `${b64({ alg: 'HS256' })}.${b64({ sub: 'cand-tabs', plan: 'premium', exp: Math.floor(Date.now() / 1000) - 60 })}.sig`;
    await third.evaluate((t) => localStorage.setItem('palabre.token', t), expired);
    await third.reload();
    await expect.poll(() => third.textContent('#t2-signin-status')).toContain('pas connecté');
    expect(await third.evaluate(() => localStorage.getItem('palabre.token'))).toBeNull();
    expect(problems).toEqual([]);
  }, 90_000);

  it('a dropped connection shows « Connexion perdue, reprise… » and resumes when the server is reachable again', async () => {
    env = await startT2();
    // Cut the page's socket as a network failure would (the page sees 1006), and refuse its
    // reconnects while `unreachable` holds.
    const sockets: Array<{ destroy(): void }> = [];
    let unreachable = false;
    env.server.prependListener('upgrade', (_req, socket: { destroy(): void }) => {
      if (unreachable) socket.destroy();
      else sockets.push(socket);
    });
    const { page, problems } = await newPage(env);
    await page.goto(`/t2/sujets/club-de-sport#token=${await env.mint('premium', 'cand-flaky')}`);
    await page.click('#t2-start-button');
    await page.waitForSelector('#t2-text-form:not([hidden])');
    await page.fill('#t2-text', 'Bonjour, quels sont vos horaires ?');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]');
    unreachable = true;
    for (const s of sockets.splice(0)) s.destroy();
    await page.waitForSelector('#t2-reconnecting:has-text("Connexion perdue, reprise")');
    expect(await page.isDisabled('#t2-end')).toBe(true);
    expect(await page.isDisabled('#t2-start-button')).toBe(true);
    expect(await axeAt(page)).toEqual([]);
    unreachable = false;
    await page.waitForSelector('#t2-reconnecting:has-text("Séance reprise")', { timeout: 15_000 });
    expect(await page.locator('#t2-transcript li').count()).toBe(2);
    expect(await axeAt(page)).toEqual([]);
    await page.fill('#t2-text', 'Combien coûte l’abonnement ?');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]').count()).toBe(2);
    await page.click('#t2-end');
    await page.click('#t2-end-confirm');
    await page.waitForSelector('#t2-report:not([hidden])');
    expect(env.corrections.oral).toHaveLength(1);
    expect(problems.filter(notRefusedReconnect)).toEqual([]);
  }, 60_000);

  it('a connection lost past the grace period says « Connexion perdue… », that the session is graded, and where its report is', async () => {
    env = await startT2({ env: { T2_RESUME_GRACE_MS: '2500' } });
    // The server stays unreachable: every upgrade after the cut is refused.
    const sockets: Array<{ destroy(): void }> = [];
    let unreachable = false;
    env.server.prependListener('upgrade', (_req, socket: { destroy(): void }) => {
      if (unreachable) socket.destroy();
      else sockets.push(socket);
    });
    const { page, problems } = await newPage(env);
    await page.goto(`/t2/sujets/club-de-sport#token=${await env.mint('premium', 'cand-drop')}`);
    await page.click('#t2-start-button');
    await page.waitForSelector('#t2-text-form:not([hidden])');
    await page.fill('#t2-text', 'Bonjour, quels sont vos horaires ?');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]');
    unreachable = true;
    for (const s of sockets.splice(0)) s.destroy();
    await page.waitForSelector('#t2-error:not([hidden])');
    unreachable = false;
    expect(await page.textContent('#t2-error-title')).toBe('Connexion perdue…');
    expect(await page.textContent('#t2-error-help')).toMatch(/évaluée.*Mes séances/s);
    expect(await page.isDisabled('#t2-start-button')).toBe(false);
    expect(await axeAt(page)).toEqual([]);
    // The server graded what was said once the grace period ended; the report is in « Mes séances ».
    await expect.poll(() => env!.corrections.oral.length, { timeout: 15_000 }).toBe(1);
    expect(env.corrections.oral[0]!.meta).toMatchObject({ endReason: 'disconnected' });
    await page.click('#t2-error-help a');
    await page.waitForSelector('#t2-sessions-list li');
    expect(await page.textContent('#t2-sessions-list')).toContain('évaluée');
    expect(problems.filter(notRefusedReconnect)).toEqual([]);
  }, 60_000);

  it('« Mes séances » lists past sessions and opens a report with readable sections; print stylesheet hides the chrome', async () => {
    env = await startT2();
    const id = await seedSession(env, { candidateId: 'cand-report' });
    await seedSession(env, { candidateId: 'someone-else' });
    await seedSession(env, { candidateId: 'cand-report', report: modelReport({ detectorsOnly: true, source: 'detectors', scoreGlobal: 9.5, nclc: { niveau: '6', source: 'x' }, detectorsOnlyReason: 'offline_provider' }) });
    const { page, problems } = await newPage(env);
    await page.goto(`/t2/seances#token=${await env.mint('free', 'cand-report')}`);
    await page.waitForSelector('#t2-sessions-list li');
    expect(await page.locator('#t2-sessions-list li').count()).toBe(2);
    expect(await page.textContent('#t2-sessions-list')).toContain('NCLC 8');
    expect(await axeAt(page)).toEqual([]);

    await Promise.all([page.waitForURL(`**/t2/seances/${id}`), page.click(`#t2-sessions-list li[data-session-id="${id}"] a`)]);
    await page.waitForSelector('#t2-session-body table');
    const text = (await page.textContent('#t2-session-body')) ?? '';
    expect(await page.textContent('#t2-session-title')).toMatch(/Rapport — .+/);
    // Criteria by their French names, on /20, with the justification; phonologie explained.
    for (const name of ['Cohérence et cohésion', 'Étendue et maîtrise du lexique', 'Maîtrise morphosyntaxique', 'Phonologie']) expect(text).toContain(name);
    expect(text).toContain('13 / 20');
    expect(text).toContain('Questions enchaînées logiquement');
    expect(text).not.toContain('coherence_cohesion');
    // Global score, NCLC level and its meaning.
    expect(await page.textContent('.report-score')).toBe('12 / 20');
    expect(await page.textContent('.report-nclc')).toBe('8');
    expect(await page.textContent('.report-nclc-meaning')).toContain('intermédiaire avancé');
    // Strengths, three pieces of advice, each error with its correction and its quote marked in the transcript.
    expect(text).toContain('Vous saluez et entrez vite dans le sujet.');
    expect(await page.locator('#rp-advice ~ ol li').count()).toBe(3);
    expect(await page.locator('.report-errors li').count()).toBe(2);
    expect(text).toContain('s’il vous plaît');
    expect(await page.locator('.report-transcript mark').count()).toBe(2);
    expect(await page.textContent('#rp-err-1')).toContain('si il vous plaît');
    await page.click('.report-errors li:first-child a.report-jump');
    expect(page.url()).toContain('#rp-err-1');
    // The interlocutor's rules, in plain words; no internal reference anywhere.
    expect(text).toContain('1 réponse sur 2 a respecté toutes les règles');
    expect(text).toContain('Aucune question, aucun point d’interrogation : 1 fois');
    expect(text).not.toMatch(/TD-08|§\d|JSON/);
    expect(await axeAt(page)).toEqual([]);
    // Downloads: the transcript as text; a text session has no audio, and the page says so.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#t2-session-transcript')]);
    expect(download.suggestedFilename()).toBe(`t2-${id}.txt`);
    expect(await page.isHidden('#t2-session-audio')).toBe(true);
    expect(await page.textContent('#t2-session-no-audio')).toContain('mode texte');
    // Printing keeps the report and drops navigation, sign-in and buttons.
    await page.emulateMedia({ media: 'print' });
    expect(await page.isVisible('#t2-session-body table')).toBe(true);
    for (const sel of ['.site-nav', '#t2-signin', '#t2-session-actions']) expect(await page.isVisible(sel)).toBe(false);
    await page.emulateMedia({ media: 'screen' });
    if (process.env.SCREENSHOTS) {
      mkdirSync('docs/img', { recursive: true });
      await page.screenshot({ path: join('docs/img', 't2-report.png'), fullPage: true });
    }

    // The offline report says plainly what automatic grading without a language model means.
    await page.goto('/t2/seances');
    await page.click('#t2-sessions-list li:not([data-session-id="' + id + '"]) a');
    await page.waitForSelector('.report-offline');
    expect(await page.textContent('.report-offline')).toMatch(/sans modèle de langue.*indicatives/s);
    expect(await page.textContent('.report-estimate')).toContain('estimation des seuls détecteurs');
    expect(await axeAt(page)).toEqual([]);

    // Another candidate's session is not found.
    await page.goto(`/t2/seances/${await seedSession(env, { candidateId: 'someone-else' })}`);
    await expect.poll(() => page.textContent('#t2-session-status')).toContain('introuvable');
    expect(problems).toEqual([]);
  }, 60_000);

  it('dev sign-in: « Se connecter en mode développement » for a chosen plan; the Premium refusal says what helps', async () => {
    env = await startT2({ devAuth: true });
    const { page, problems } = await newPage(env);
    // Signed out, « Mes séances » says what to do, and offers the dev sign-in.
    await page.goto('/t2/seances');
    expect(await page.textContent('#t2-sessions-status')).toContain('Connectez-vous');
    expect(await page.isVisible('#t2-dev-signin')).toBe(true);
    expect(await axeAt(page)).toEqual([]);
    await page.goto('/t2/sujets/club-de-sport');
    expect(await page.isDisabled('#t2-start-button')).toBe(true);
    expect(await axeAt(page)).toEqual([]);
    await page.selectOption('#t2-dev-plan', 'free');
    await page.fill('#t2-dev-sub', 'dev-ana');
    await page.click('#t2-dev-signin');
    await expect.poll(() => page.textContent('#t2-signin-status')).toContain('dev-ana, offre Gratuite');
    await page.click('#t2-start-button');
    await page.waitForSelector('#t2-error:not([hidden])');
    expect(await page.textContent('#t2-error-title')).toBe('Offre Premium nécessaire');
    expect(await page.textContent('#t2-error-help')).toMatch(/dialogue en direct.*Premium/s);
    expect(await axeAt(page)).toEqual([]);
    // A token the server refuses (4001): it is forgotten and the sign-in comes back.
    await page.evaluate(() => sessionStorage.setItem('palabre.token', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4IiwicGxhbiI6InByZW1pdW0ifQ.bad'));
    await page.click('#t2-retry');
    await expect.poll(() => page.textContent('#t2-error-title')).toBe('Connexion requise');
    expect(await page.isVisible('#t2-dev-signin')).toBe(true);
    expect(await page.textContent('#t2-signin-status')).toContain('pas connecté');
    // Sign in again with Premium: the session starts.
    await page.selectOption('#t2-dev-plan', 'premium');
    await page.click('#t2-dev-signin');
    await expect.poll(() => page.textContent('#t2-signin-status')).toContain('offre Premium');
    await page.click('#t2-retry');
    await page.waitForSelector('#t2-text-form:not([hidden])');
    await page.fill('#t2-text', 'Bonjour, quels sont vos horaires ?');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]');
    await page.click('#t2-end');
    await page.click('#t2-end-confirm');
    await page.waitForSelector('#t2-report:not([hidden])');
    expect(await page.isHidden('#t2-download')).toBe(true);
    expect(await page.textContent('#t2-no-audio')).toContain('mode texte');
    expect(await page.isDisabled('#t2-start-button')).toBe(false);
    expect(await axeAt(page)).toEqual([]);
    // The session is in « Mes séances » for the same dev candidate.
    await page.goto('/t2/seances');
    await page.waitForSelector('#t2-sessions-list li');
    expect(await page.locator('#t2-sessions-list li').count()).toBe(1);
    // Signing out keeps the keyboard focus in the sign-in section and hides the sessions.
    await page.focus('#t2-signout');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('t2-signin-status');
    await expect.poll(() => page.locator('#t2-sessions-list li').count()).toBe(0);
    expect(problems).toEqual([]);
  }, 60_000);
});
