import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docsSurface } from '../../actors/docs/surface.js';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { silentLogger } from '../../core/log.js';
import type { RunningServer } from '../../core/server.js';
import { startServer } from '../../actors/serve.js';
import { ADMIN_PASSWORD, adminLogin } from '../inspect/support.js';
import { makeCorpus } from './fixtures.js';

/** /admin/docs/gaps over real HTTP: what the docs did not answer, behind the admin login. */
let root: string;
let data: string;
let running: RunningServer;
let base: string;

beforeAll(async () => {
  root = makeCorpus();
  data = mkdtempSync(join(tmpdir(), 'palabre-gaps-'));
  const config = loadPalabreConfig({
    env: { CORPUS_DIR: root, DATA_DIR: data, PORT: '0', MQTT_EMBEDDED_PORT: '0', CHAT_PROVIDER: 'offline', ADMIN_PASSWORD, SESSION_SECRET: 'gaps-session-secret-0123456789abcdef', DOCS_LEXICONS: 'off', CHAT_SCORE_THRESHOLD: '0.3' },
    dotenvPath: null,
  });
  running = await startServer({ config, logger: silentLogger(), surfaces: [async () => docsSurface] });
  base = running.ctx.publicUrl.replace(/\/$/, '');
});

afterAll(async () => {
  await running.shutdown('test');
  rmSync(root, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});

const ask = async (question: string): Promise<{ state: string; confidence: string }> =>
  (await (await fetch(`${base}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question }) })).json()) as { state: string; confidence: string };

type Groups = { days: number; groups: Array<{ question: string; count: number; refused: number; low: number }> };

describe('/admin/docs/gaps', () => {
  it('needs the admin login', async () => {
    const anon = await fetch(`${base}/admin/docs/gaps`, { redirect: 'manual' });
    expect(anon.status).toBe(303);
    expect(anon.headers.get('location')).toBe('/admin/login?next=%2Fadmin%2Fdocs%2Fgaps');
    const json = await fetch(`${base}/admin/docs/gaps?format=json`, { redirect: 'manual' });
    expect([303, 401]).toContain(json.status);
  });

  it('lists the refused and low-confidence questions grouped by what they asked, never the answered ones', async () => {
    expect((await ask('How do I factory reset an iPhone?')).state).toBe('outOfScope');
    expect((await ask('iPhone factory reset: how do I do it?')).state).toBe('outOfScope');
    const answered = await ask('Combien de temps conserver un dossier médical ?');
    expect(answered).toMatchObject({ state: 'answered', confidence: 'high' });
    const cookie = await adminLogin(base);
    const read = async (): Promise<Groups> => (await (await fetch(`${base}/admin/docs/gaps?format=json&days=7`, { headers: { cookie } })).json()) as Groups;
    await expect.poll(async () => (await read()).groups.reduce((n, g) => n + g.count, 0), { timeout: 5000, interval: 50 }).toBe(2);
    const { groups } = await read();
    expect(groups).toEqual([{ topic: expect.any(String), question: 'iPhone factory reset: how do I do it?', count: 2, refused: 2, low: 0, lastAsked: expect.any(String) }]);
    const page = await fetch(`${base}/admin/docs/gaps`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('<h1>Questions sans réponse</h1>');
    expect(text).toContain('<td>iPhone factory reset: how do I do it?</td><td>2</td><td>2</td><td>0</td>');
    expect(text).not.toContain('dossier médical');
  });

  it('a bad period is a 400 that says what is wrong', async () => {
    const cookie = await adminLogin(base);
    const res = await fetch(`${base}/admin/docs/gaps?days=0`, { headers: { cookie } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('au moins 1');
  });
});
