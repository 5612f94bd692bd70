import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultCacheDir } from '../../core/cacheDir.js';
import { PROJECT_ROOT } from '../../core/version.js';
import { freePort, spawnServe } from '../serve/spawnServe.js';

/**
 * `npm install` brings the offline engines (postinstall: scripts/install-engines.mjs) where the
 * machine allows it, into the user's cache folder, and never fails the install where it does not.
 */
describe('the offline engines cache folder', () => {
  it('is PALABRE_CACHE_DIR, else $XDG_CACHE_HOME/palabre, else ~/.cache/palabre: never the temporary folder', () => {
    expect(defaultCacheDir({ PALABRE_CACHE_DIR: '/srv/cache', XDG_CACHE_HOME: '/x', HOME: '/home/a' })).toBe('/srv/cache');
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/a' })).toBe('/x/cache/palabre');
    // The XDG specification ignores a relative path.
    expect(defaultCacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/home/a' })).toBe('/home/a/.cache/palabre');
    expect(defaultCacheDir({ HOME: '/home/a' })).toBe('/home/a/.cache/palabre');
  });

  it('npm install runs the engines installer after the dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.postinstall).toBe('node scripts/install-engines.mjs');
    expect(pkg.scripts['engines:install']).toBe('node scripts/install-engines.mjs');
  });
});

describe('scripts/install-engines.mjs where apt-get cannot download', () => {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-engines-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 0, installs nothing, and names what is missing with the one command that adds each', () => {
    // An apt-get whose package lists are stale: the download fails, as on a machine never updated.
    const bin = join(dir, 'bin');
    spawnSync('mkdir', ['-p', bin]);
    writeFileSync(join(bin, 'apt-get'), '#!/bin/sh\necho "E: Unable to locate package $3" >&2\nexit 100\n');
    chmodSync(join(bin, 'apt-get'), 0o755);
    const cache = join(dir, 'cache');
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts/install-engines.mjs')], {
      cwd: PROJECT_ROOT,
      env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir, PALABRE_CACHE_DIR: cache },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`offline engines → ${cache}`);
    expect(r.stdout).toContain('apt-get download libreoffice-grammalecte failed');
    expect(r.stdout).toContain('to add grammalecte later: npm run grammalecte:install');
    expect(r.stdout).toContain('to add lexicons later: npm run lexicons:install');
    expect(r.stdout).not.toContain('offline engines ready');
  }, 90_000);

  it('PALABRE_SKIP_ENGINES=1 skips it and says how to add them', () => {
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts/install-engines.mjs')], {
      cwd: PROJECT_ROOT, env: { PATH: process.env.PATH ?? '', HOME: dir, PALABRE_SKIP_ENGINES: '1' }, encoding: 'utf8', timeout: 30_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('npm run engines:install');
  });
});

describe('npm start on a machine without the offline engines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-no-engines-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves, and its banner names what is missing and the command that adds each', async () => {
    const serve = spawnServe({
      PORT: String(await freePort()),
      MQTT_EMBEDDED_PORT: String(await freePort()),
      DATA_DIR: join(dir, 'data'),
      PALABRE_CACHE_DIR: join(dir, 'empty-cache'),
      GRAMMALECTE_PATH: '',
      LOG_FORMAT: 'json',
    });
    try {
      await serve.waitFor(/is serving/, 60_000);
      await serve.waitFor(/docs assistant: ranking without query expansion/, 30_000);
      // The banner's lines arrive as separate writes after « is serving »: wait for the one read below.
      await serve.waitFor(/corrections engine: /, 30_000);
      const banner = serve.stdout();
      expect(banner).toMatch(/corrections engine: built-in detectors only \(Grammalecte not found in .*empty-cache.*\); for Grammalecte: npm run grammalecte:install/);
      expect(banner).toMatch(/docs assistant: ranking without query expansion: no dictionary in .*empty-cache.*lexicons \(bash actors\/retrieval\/lexicons\/install\.sh\)/);
    } finally {
      serve.child.kill('SIGTERM');
      expect((await serve.exited).code).toBe(0);
    }
  }, 120_000);
});
