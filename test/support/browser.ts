import { chromium, type Browser } from 'playwright-core';
import { requireBinary } from './requires.js';

export const chromiumRequirement = requireBinary('chromium', 'chromium');

/** Debian's Chromium, headless, with the flags this closed network needs. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumRequirement.path,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}
