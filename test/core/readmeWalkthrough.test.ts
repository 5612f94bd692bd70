import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/version.js';
import { freePort } from '../serve/spawnServe.js';

/**
 * The README's "First steps in the terminal", run line by line exactly as written there (read
 * from the README between its walkthrough markers, so the two cannot drift apart). Only the
 * environment is the test's: a fresh DATA_DIR, free ports, no API key.
 */
export function walkthroughCommands(readme: string): string[] {
  const block = /<!-- walkthrough:start[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- walkthrough:end -->/.exec(readme);
  if (!block) throw new Error('README.md has no walkthrough block between <!-- walkthrough:start --> and <!-- walkthrough:end -->');
  return block[1]!.split('\n').map((l) => l.replace(/\s+#\s.*$/, '').trim()).filter(Boolean);
}

const dataDir = mkdtempSync(join(tmpdir(), 'palabre-walkthrough-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function sh(command: string, env: Record<string, string>, opts: { detached?: boolean } = {}) {
  const child = spawn('sh', ['-c', command], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: opts.detached ?? false });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, out: () => out, err: () => err };
}

describe('README walkthrough: doctor → index → ask → serve, as written', () => {
  const commands = walkthroughCommands(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8'));

  it('holds doctor, index, ask, then npm start', () => {
    expect(commands).toHaveLength(4);
    expect(commands[0]).toMatch(/^npx palabre doctor$/);
    expect(commands[1]).toMatch(/^npx palabre index \S+$/);
    expect(commands[2]).toMatch(/^npx palabre ask "[^"]+"$/);
    expect(commands[3]).toBe('npm start');
  });

  it('runs each line: every check passes, the folder is indexed, the question answered from it, and serve starts and stops with 0', async () => {
    const env = {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATA_DIR: dataDir,
      PORT: String(await freePort()), MQTT_EMBEDDED_PORT: String(await freePort()),
      // The first `npx palabre` of a machine installs the checkout into npx's cache, which runs its
      // `prepare` script: a full tsc build into dist/ in the middle of the test run (slow, and other
      // tests would load half-written files). Scripts off for that install; `npm start` still runs.
      npm_config_ignore_scripts: 'true',
    };
    const [doctorCmd, indexCmd, askCmd, startCmd] = commands as [string, string, string, string];

    const doctor = sh(doctorCmd, env);
    expect(await doctor.exited, doctor.out() + doctor.err()).toBe(0);
    expect(doctor.out()).toMatch(/Everything the configured surfaces need is there/);

    const index = sh(indexCmd, env);
    expect(await index.exited, index.err()).toBe(0);
    const done = JSON.parse(index.out().trim().split('\n').at(-1)!) as { event: string; root: string; passages: number };
    expect(done).toMatchObject({ event: 'done', root: join(PROJECT_ROOT, indexCmd.split(' ').at(-1)!) });
    expect(done.passages).toBeGreaterThan(50);

    const ask = sh(askCmd, env);
    expect(await ask.exited, ask.out() + ask.err()).toBe(0);
    expect(ask.out()).toMatch(/^Sources :\n {2}\[1\] \S+\.md › /m);

    // A terminal's shell runs the line as its own process group with no shell process inside it:
    // `exec` gives the same here, so Ctrl-C reaches npm and node as it would for a person.
    const serve = sh(`exec ${startCmd}`, env, { detached: true });
    try {
      const base = await new Promise<string>((resolve, reject) => {
        const onData = () => {
          const m = /health (http:\/\/\S+)\/healthz/.exec(serve.out());
          if (m) resolve(m[1]!);
        };
        serve.child.stdout.on('data', onData);
        void serve.exited.then((code) => reject(new Error(`npm start exited ${code}: ${serve.out()}${serve.err()}`)));
      });
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      // serve answers from the folder `palabre index` was given.
      const search = (await (await fetch(`${base}/api/search?q=port%20HTTP&k=1`)).json()) as unknown;
      expect(JSON.stringify(search)).toMatch(/\.md/);
      process.kill(-serve.child.pid!, 'SIGINT'); // Ctrl-C: the terminal signals the whole group
      expect(await serve.exited).toBe(0);
    } finally {
      try {
        process.kill(-serve.child.pid!, 'SIGKILL');
      } catch {
        // the group has already ended: nothing left to stop
      }
    }
  }, 120_000);
});
