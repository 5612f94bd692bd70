import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { chromiumRequirement, launchChromium } from '../support/browser.js';
import { requireBinary } from '../support/requires.js';
import { startT2, type T2Env } from './support.js';

const espeak = requireBinary('espeak-ng', 'espeak-ng');
const ok = chromiumRequirement.ok && espeak.ok;
const REPLY = 'Le club est ouvert de six heures à vingt-trois heures en semaine, et de huit heures à vingt heures le week-end.';

async function axe(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** RMS of PCM16 LE bytes. */
function rms(pcm: Buffer): number {
  let sum = 0;
  const n = Math.floor(pcm.length / 2);
  for (let i = 0; i < n; i++) sum += pcm.readInt16LE(i * 2) ** 2;
  return Math.sqrt(sum / Math.max(1, n));
}

describe.skipIf(!ok)(`T2 live page in Chromium (${chromiumRequirement.reason}; ${espeak.reason})`, () => {
  let dir: string;
  let wav: string;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-t2-browser-'));
    wav = join(dir, 'candidat.wav');
    // A French candidate, spoken by espeak-ng, fed to Chromium as its microphone.
    execFileSync(espeak.path, ['-v', 'fr', '-s', '150', '-w', wav, 'Bonjour, je voudrais savoir quels sont les horaires du club, s’il vous plaît.']);
    browser = await launchChromium([
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      `--use-file-for-fake-audio-capture=${wav}`,
      '--autoplay-policy=no-user-gesture-required',
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('microphone → page → socket → Gemini Live fake → interlocutor audio back → Terminer → report → downloadable WAV', async () => {
    const env: T2Env = await startT2({
      gemini: { onConnection: (conn) => conn.autoReply({ afterAudioBytes: 32000, candidateText: 'Bonjour, quels sont les horaires du club', replyText: REPLY }) },
    });
    try {
      const token = await env.mint('premium', 'cand-browser');
      const context = await browser.newContext({ acceptDownloads: true });
      await context.grantPermissions(['microphone'], { origin: env.baseUrl });
      const page = await context.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(`${env.baseUrl}/t2/sujets/club-de-sport#token=${token}`);
      expect(await axe(page)).toEqual([]);
      // Keyboard only: tab to the button and press Enter.
      await page.focus('#t2-start-button');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]', { timeout: 20000 });
      expect(await page.textContent('#t2-transcript li[data-speaker="interlocutor"] span')).toBe(REPLY);
      expect(await page.textContent('#t2-transcript li[data-speaker="candidate"] span')).toBe('Bonjour, quels sont les horaires du club');
      expect(await page.textContent('#t2-timer')).toMatch(/^[45]:\d\d$/);
      // The interlocutor's 24 kHz audio reached the page's player (200 ms of the fake's tone).
      await page.waitForFunction(() => Number(document.body.dataset.t2Played ?? 0) >= 4800);
      // The candidate's voice really went through: 16 kHz PCM16 that is not silence.
      const conn = env.fake!.connections[0]!;
      expect(new Set(conn.audioMimeTypes)).toEqual(new Set(['audio/pcm;rate=16000']));
      const heard = Buffer.concat(conn.audioChunks);
      expect(heard.length).toBeGreaterThanOrEqual(32000);
      expect(rms(heard)).toBeGreaterThan(300);
      expect(await axe(page)).toEqual([]);
      await page.focus('#t2-end');
      await page.keyboard.press('Enter');
      // « Terminer » asks first; the focus starts on « Continuer le dialogue », the safe choice.
      await page.waitForSelector('#t2-end-dialog[open]');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('t2-end-cancel');
      await page.focus('#t2-end-confirm');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#t2-report:not([hidden])', { timeout: 20000 });
      expect(await page.getAttribute('body', 'data-t2-state')).toBe('ended');
      expect(await page.textContent('#t2-report-body [data-critere="phonologie"]')).toMatch(/^Phonologienon évaluée/);
      expect(await page.isVisible('#t2-no-audio')).toBe(false);
      expect(await axe(page)).toEqual([]);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#t2-download')]);
      const bytes = readFileSync((await download.path())!);
      expect(bytes.subarray(0, 4).toString('ascii')).toBe('RIFF');
      expect(bytes.readUInt32LE(24)).toBe(24000);
      expect(bytes.readUInt32LE(40)).toBe(bytes.length - 44);
      expect(bytes.length - 44).toBeGreaterThan(24000 * 2); // more than a second of the dialogue
      expect(env.corrections.oral[0]!.candidateId).toBe('cand-browser');
      expect(pageErrors).toEqual([]);
      await context.close();
    } finally {
      await env.close();
    }
  }, 60000);

  it('text mode without a Gemini key, and the error state with its close code and Réessayer', async () => {
    const env: T2Env = await startT2();
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${env.baseUrl}/t2/sujets/club-de-sport#token=${await env.mint('free')}`);
      expect(await page.textContent('.notice')).toContain('Mode texte');
      await page.click('#t2-start-button');
      await page.waitForSelector('#t2-error:not([hidden])');
      expect(await page.textContent('#t2-error-message')).toContain('4003');
      expect(await axe(page)).toEqual([]);
      // A token handed over by hand: sign out, unfold « J’ai reçu un jeton d’accès », use it, retry.
      await page.click('#t2-signout');
      await page.click('#t2-token-details summary');
      await page.fill('#t2-token', await env.mint('premium'));
      await page.click('#t2-token-use');
      await page.click('#t2-retry');
      await page.waitForSelector('#t2-text-form:not([hidden])');
      await page.fill('#t2-text', 'Bonjour, quels sont vos horaires ?');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#t2-transcript li[data-speaker="interlocutor"][data-final="true"]');
      expect(await page.textContent('#t2-transcript li[data-speaker="interlocutor"] span')).toBe(`Bonjour. ${REPLY}`);
      await page.click('#t2-end');
      await page.click('#t2-end-confirm');
      await page.waitForSelector('#t2-report:not([hidden])');
      expect(await page.isHidden('#t2-download')).toBe(true);
      await context.close();
    } finally {
      await env.close();
    }
  }, 60000);
});
