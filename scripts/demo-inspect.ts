/**
 * `npm run demo:inspect`: screenshots of /inspect into docs/img/ — a live T2 session (text mode,
 * offline provider) selected, its statechart with the current state highlighted, and the event
 * log. Runs `palabre serve` in-process on free ports with a throwaway data folder.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import WebSocket from 'ws';
import { loadPalabreConfig } from '../actors/palabreConfig.js';
import { createAuth } from '../core/auth.js';
import { silentLogger } from '../core/log.js';
import { startServer } from '../actors/serve.js';

const OUT = 'docs/img';
const PASSWORD = 'demo-inspector-password';
const JWT_SECRET = 'demo-inspector-jwt-secret-0123456789';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-demo-inspect-'));
  const config = loadPalabreConfig({
    env: { PORT: '0', MQTT_EMBEDDED_PORT: '0', DATA_DIR: dir, ADMIN_PASSWORD: PASSWORD, JWT_SECRET, LOG_LEVEL: 'silent', LLM_PROVIDER: 'offline' },
    dotenvPath: null,
  });
  const server = await startServer({ config, logger: silentLogger() });
  const { port } = server.http.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await (await browser.newContext({ baseURL: url, viewport: { width: 1400, height: 1100 } })).newPage();
    await page.goto('/admin/login?next=/inspect');
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL('**/inspect'), page.click('button[type="submit"]')]);
    const token = await createAuth({ JWT_SECRET, DATA_DIR: dir }).mintToken({ sub: 'demo-candidate', plan: 'premium' });
    const ws = new WebSocket(`${url.replace('http', 'ws')}/t2/live?token=${encodeURIComponent(token)}&sujet=location-voiture`);
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    await page.locator('#actors button', { hasText: 't2live' }).waitFor({ timeout: 15_000 });
    await page.locator('#actors button', { hasText: 't2live' }).click();
    await page.locator('#chart svg g.state.active').first().waitFor();
    ws.send(JSON.stringify({ type: 'text', text: 'Bonjour, quel est le prix de la location pour une semaine ?' }));
    await page.waitForTimeout(2500); // let the interlocutor answer so the log and state move
    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: join(OUT, 'inspector.png'), fullPage: true });
    console.log(`wrote ${join(OUT, 'inspector.png')}`);
    ws.close();
  } finally {
    await browser.close();
    await server.shutdown('demo done');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
