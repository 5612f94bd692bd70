import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../core/version.js';

/** A port that was free a moment ago (probe: listen on 0, read the port, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      server.close(() => resolve(port));
    });
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
