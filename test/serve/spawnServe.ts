import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../core/version.js';

/**
 * A port that was free a moment ago. Drawn below Linux's ephemeral range (32768–60999): a port the
 * kernel hands out for `listen(0)` is also one it hands to outgoing connections, so between this
 * probe and the child's own listen another test's client socket could take it.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error('no free port found between 20000 and 32000');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export interface ServeProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code and how long after `since` the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** Resolves when stdout matches `re` (rejects on exit or after `ms`). */
  waitFor(re: RegExp, ms?: number): Promise<RegExpMatchArray>;
}

/** Runs `node --import tsx cli/main.ts serve` in the project root with only the given settings. */
export function spawnServe(env: Record<string, string>, args: string[] = []): ServeProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'cli/main.ts'), 'serve', ...args], {
    cwd: PROJECT_ROOT,
    // No API key from the developer's environment: the offline provider must answer.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() }));
  });
  const waitFor = (re: RegExp, ms = 50_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const m = out.match(re);
        if (m) {
          cleanup();
          resolve(m);
        }
      };
      const onExit = () => {
        cleanup();
        reject(new Error(`serve exited before ${re}: stdout=${out} stderr=${err}`));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timeout waiting for ${re}: stdout=${out} stderr=${err}`));
      }, ms);
      const cleanup = () => {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        child.off('exit', onExit);
      };
      child.stdout!.on('data', check);
      child.once('exit', onExit);
      check();
    });
  return { child, stdout: () => out, stderr: () => err, exited, waitFor };
}
