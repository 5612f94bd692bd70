import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { echoConfig } from '../../actors/echo/echoConfig.js';
import { loadPalabreConfig, PALABRE_SECTIONS } from '../../actors/palabreConfig.js';
import { echoSurface } from '../../actors/surfaces.js';
import { renderConfigTables } from '../../core/config/configDoc.js';
import { loadConfig } from '../../core/config/load.js';
import { configKeys } from '../../core/config/schema.js';
import { configSection } from '../../core/config/section.js';
import { lazySurface } from '../../core/surfaceContract.js';
import { configError } from '../support/configError.js';
import { startInspectServer, type InspectServer } from '../inspect/support.js';

/**
 * A surface's own configuration section, declared through the contract: the echo example declares
 * ECHO_MAX_TEXT (actors/echo/echoConfig.ts), its list entry carries it, the loader validates and
 * lists it, and its composition root hands the value to its edge as a plain option.
 */

const dir = mkdtempSync(join(tmpdir(), 'palabre-echo-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One frame sent, the next frame received. */
function exchange(ws: WebSocket, frame: unknown): Promise<{ type: string; text?: string; message?: string }> {
  return new Promise((resolve) => {
    ws.once('message', (data) => resolve(JSON.parse(data.toString()) as { type: string }));
    ws.send(JSON.stringify(frame));
  });
}

describe("the echo surface's configuration section", () => {
  it('is carried by its list entry and loaded, with its default, beside every other section', () => {
    expect(echoSurface.config).toBe(echoConfig);
    expect(configKeys(PALABRE_SECTIONS)).toContain('ECHO_MAX_TEXT');
    expect(loadPalabreConfig({ env: {}, dotenvPath: null }).ECHO_MAX_TEXT).toBe(1000);
    expect(renderConfigTables(PALABRE_SECTIONS)).toContain('| `ECHO_MAX_TEXT` | `1000` |');
  });

  it('a bad value gets the usual error: one line naming the key, with what is wrong', () => {
    for (const [value, why] of [['lots', /expected number/], ['0', /too small/i], ['5000', /too big/i]] as const) {
      const err = configError(() => loadPalabreConfig({ env: { ECHO_MAX_TEXT: value, PORT: '3001' }, dotenvPath: null }));
      expect(err.problems).toHaveLength(1);
      expect(err.problems[0]).toMatch(/^ECHO_MAX_TEXT: /);
      expect(err.problems[0]).toMatch(why);
      expect(err.message).toContain('Fix these keys in the environment, .env or the config file');
    }
  });

  it('the JSON file may set it; core alone, which knows no surface key, refuses it there', () => {
    const file = join(dir, 'palabre.json');
    writeFileSync(file, JSON.stringify({ ECHO_MAX_TEXT: 20, PORT: 4000 }));
    expect(loadPalabreConfig({ env: {}, file, dotenvPath: null }).ECHO_MAX_TEXT).toBe(20);
    expect(configError(() => loadConfig([], { env: {}, file, dotenvPath: null })).problems).toEqual([`ECHO_MAX_TEXT: unknown key in ${file}`]);
    // In the environment an undeclared key is an unrelated variable: ignored, absent from the result.
    const core = loadConfig([], { env: { ECHO_MAX_TEXT: 'lots' }, dotenvPath: null });
    expect(Object.keys(core)).not.toContain('ECHO_MAX_TEXT');
  });

  it('a list entry and the surface it loads declare the same section object', async () => {
    const other = configSection({ title: 'Another', shape: {} });
    const entry = lazySurface(echoConfig, async () => ({ name: 'echo', config: other, start: async () => ({ stop: async () => {} }) }));
    await expect(entry()).rejects.toThrow('the echo surface declares another configuration section than its list entry carries');
    expect((await echoSurface()).config).toBe(echoConfig);
  });
});

describe('ECHO_MAX_TEXT reaches the edge through the composition root', () => {
  let srv: InspectServer | undefined;
  afterAll(async () => {
    await srv?.close();
  });

  it('a text longer than ECHO_MAX_TEXT gets bad_frame; a shorter one is echoed', async () => {
    srv = await startInspectServer([echoSurface], { ECHO_MAX_TEXT: '5' });
    const ws = new WebSocket(`${srv.url.replace('http', 'ws')}/echo/ws`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    expect(await exchange(ws, { type: 'say', text: 'bonjour' })).toMatchObject({ type: 'error', code: 'bad_frame', message: expect.stringContaining('text longer than 5 characters') });
    expect(await exchange(ws, { type: 'say', text: 'salut' })).toEqual({ type: 'echo', text: 'salut', total: 1 });
    ws.close();
  });
});
