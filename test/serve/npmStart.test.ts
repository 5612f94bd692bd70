import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ECHO_WINDOW_MS, signalClassifier } from '../../cli/signals.js';
import { PROJECT_ROOT } from '../../core/version.js';

/**
 * `npm start` as a person runs it. Ctrl-C in a terminal sends SIGINT to the whole foreground
 * process group (npm and node), and npm relays it to node once more; `kill` on npm sends SIGTERM
 * to npm alone, which relays it. Either way node must stop cleanly and npm exit 0, with no node
 * left running. The process group here is a detached one, signalled as the terminal would.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'palabre-npmstart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function npmStart(name: string): { pid: number; stdout: () => string; serving: Promise<void>; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: PROJECT_ROOT,
    detached: true,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: '0', MQTT_EMBEDDED_PORT: '0', DATA_DIR: join(dataDir, name), SURFACES: 'none', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const serving = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"msg":"palabre serving"')) resolve();
    });
    child.once('exit', () => reject(new Error(`npm start ended before serving: ${out}`)));
  });
  child.stderr!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { pid: child.pid!, stdout: () => out, serving, exited };
}

/** True while any process of the group is alive (kill 0 only tests). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start stops cleanly', () => {
  it('Ctrl-C (SIGINT to the whole process group): one graceful stop, npm exits 0, nothing left running', async () => {
    const npm = npmStart('sigint');
    await npm.serving;
    process.kill(-npm.pid, 'SIGINT');
    expect(await npm.exited).toEqual({ code: 0, signal: null });
    expect(npm.stdout()).toMatch(/"forced":false.*"msg":"stopped"/);
    expect(npm.stdout()).not.toContain('second signal');
    expect(groupAlive(npm.pid)).toBe(false);
  }, 60_000);

  it('SIGTERM to npm alone: relayed to node, npm exits 0, nothing left running', async () => {
    const npm = npmStart('sigterm');
    await npm.serving;
    process.kill(npm.pid, 'SIGTERM');
    expect(await npm.exited).toEqual({ code: 0, signal: null });
    expect(npm.stdout()).toMatch(/"reason":"SIGTERM".*"msg":"shutting down"/);
    // node may still be flushing for a moment after npm saw it exit; it must not linger.
    for (let i = 0; i < 50 && groupAlive(npm.pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(groupAlive(npm.pid)).toBe(false);
  }, 60_000);
});

describe('signalClassifier', () => {
  it('the relayed copy of one Ctrl-C is an echo; a later or different signal is a real second one', () => {
    let t = 0;
    const classify = signalClassifier(() => t);
    expect(classify('SIGINT')).toBe('first');
    t = 5;
    expect(classify('SIGINT')).toBe('echo');
    t = ECHO_WINDOW_MS + 1;
    expect(classify('SIGINT')).toBe('again');
    const other = signalClassifier(() => 0);
    other('SIGINT');
    expect(other('SIGTERM')).toBe('again');
  });
});
