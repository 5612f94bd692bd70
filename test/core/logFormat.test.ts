import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { chooseLogFormat } from '../../core/log.js';
import { PROJECT_ROOT } from '../../core/version.js';
import { freePort, spawnServe, type ServeProcess } from '../serve/spawnServe.js';

describe('LOG_FORMAT: which form the logs take on stdout', () => {
  it('auto is pretty on a terminal and JSON otherwise; json and pretty force one', () => {
    expect(chooseLogFormat(true, 'auto')).toBe('pretty');
    expect(chooseLogFormat(false, 'auto')).toBe('json');
    expect(chooseLogFormat(true, 'json')).toBe('json');
    expect(chooseLogFormat(false, 'json')).toBe('json');
    expect(chooseLogFormat(false, 'pretty')).toBe('pretty');
    expect(chooseLogFormat(true, 'pretty')).toBe('pretty');
  });
});

describe('the pretty form keeps secrets out too', () => {
  it('redacts keys, bearer tokens and ?key= in a human line, and leads with the surface', () => {
    const code = `import('./core/log.ts').then(({ createLogger }) => createLogger({ format: 'pretty' }).child({ surface: 'docs' })
      .warn({ apiKey: 'sk-live-0123456789abcdef', url: 'https://x.test/v1?key=AIzaSyDUMMYDUMMYDUMMYDUMMY12' }, 'call failed: Bearer abcdefghijklmnop'))`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', code], { cwd: PROJECT_ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\[\d\d:\d\d:\d\d\] WARN: docs · call failed: Bearer \[redacted\] \{"apiKey":"\[redacted\]","url":"https:\/\/x\.test\/v1\?key=\[redacted\]"\}\n$/);
    expect(r.stdout).not.toMatch(/sk-live|AIza|abcdefghijklmnop/);
  });
});

describe('palabre serve logs (real subprocess, stdout is a pipe)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'palabre-logfmt-'));
  let serve: ServeProcess | undefined;
  afterEach(async () => {
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function start(extra: Record<string, string>): Promise<ServeProcess> {
    serve = spawnServe({ PORT: String(await freePort()), MQTT_EMBEDDED_PORT: String(await freePort()), DATA_DIR: join(dataDir, String(Date.now())), SURFACES: 'none', ...extra });
    return serve;
  }

  it('LOG_FORMAT=pretty: the banner, then short human lines (time, level, message, a few fields), no JSON', async () => {
    const s = await start({ LOG_FORMAT: 'pretty' });
    await s.waitFor(/INFO: palabre serving/);
    const lines = s.stdout().split('\n').filter(Boolean);
    expect(lines.some((l) => /is serving/.test(l))).toBe(true);
    expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
    const serving = lines.find((l) => l.includes('palabre serving'))!;
    expect(serving).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: palabre serving \{"version":"\d+\.\d+\.\d+","mqtt":"embedded","startMs":\d+\}$/);
    // What the banner already shows (URLs, providers) and the process identity stay out of the human line.
    expect(serving).not.toMatch(/urls|hostname|pid/);
    s.child.kill('SIGTERM');
    expect((await s.exited).code).toBe(0);
    expect(s.stdout()).toMatch(/INFO: stopped/);
  }, 60_000);

  it('by default, stdout not being a terminal: JSON lines as before', async () => {
    const s = await start({});
    await s.waitFor(/"msg":"palabre serving"/);
    const json = s.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; level: number });
    expect(json.find((l) => l.msg === 'palabre serving')).toMatchObject({ level: 30 });
    expect(s.stdout()).not.toMatch(/INFO: /);
  }, 60_000);
});
