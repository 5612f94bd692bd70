import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import type { Check } from './check.js';
import { INSTALL_HINT, locateGrammalecte } from '../../actors/corrections/grammalecte/locate.js';
import { redactUrl } from '../../core/log.js';

const EXTRA_BIN_DIRS = ['/usr/sbin', '/usr/bin', '/usr/local/bin', '/usr/local/sbin'];

/** The first executable named `name` on PATH (and the usual system folders), or undefined. */
export function findBinary(name: string, pathVar = process.env.PATH ?? ''): string | undefined {
  for (const dir of [...pathVar.split(delimiter), ...EXTRA_BIN_DIRS]) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 10_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 127) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A program the tests drive (test/support/requires.ts): optional for running palabre. */
export function checkTestBinary(id: string, label: string, names: string[], debianPackage: string, usedFor: string, pathVar?: string): Check {
  for (const name of names) {
    const path = findBinary(name, pathVar);
    if (path) return { id, group: 'engines', label, status: 'ok', detail: `${path} (${usedFor})` };
  }
  return { id, group: 'engines', label, status: 'warn', detail: `not found (${usedFor}; those tests are skipped without it)`, fix: `apt-get install -y ${debianPackage}` };
}

/**
 * The grammar checker (Grammalecte), found exactly as the corrections sidecar finds it
 * (actors/corrections/grammalecte/locate.ts: GRAMMALECTE_PATH, the install script's cache folder,
 * Debian's full install), then imported by the Python the sidecar runs (GRAMMALECTE_PYTHON).
 */
export async function checkGrammalecte(opts: { mode: 'auto' | 'off'; path?: string; python: string; cacheDir: string; pathVar?: string }): Promise<Check> {
  const base = { id: 'engine.grammalecte', group: 'engines' as const, label: 'grammar checker' };
  if (opts.mode === 'off') return { ...base, status: 'warn', detail: 'GRAMMALECTE=off: corrections use the built-in detectors alone (fewer errors found)', fix: 'unset GRAMMALECTE (or set it to auto) to use Grammalecte' };
  const python = opts.python.includes('/') ? opts.python : findBinary(opts.python, opts.pathVar);
  if (!python) return { ...base, status: 'warn', detail: `${opts.python} not found (Grammalecte runs on it; corrections work without it, with the built-in detectors alone)`, fix: 'apt-get install -y python3, or set GRAMMALECTE_PYTHON' };
  const found = locateGrammalecte(opts.path, opts.cacheDir);
  if ('missing' in found) return { ...base, status: 'warn', detail: `${found.missing}; corrections work without it, with the built-in detectors alone`, fix: INSTALL_HINT };
  const r = await run(python, ['-c', 'import grammalecte.fr, os; print(os.path.dirname(grammalecte.__file__))'], { PATH: opts.pathVar ?? process.env.PATH ?? '', PYTHONPATH: found.path });
  if (r.code === 0) return { ...base, status: 'ok', detail: `Grammalecte at ${r.stdout.trim()} (${python})` };
  return { ...base, status: 'warn', detail: `Grammalecte at ${found.path} does not import with ${python}: ${r.stderr.trim().split('\n').at(-1) ?? ''}`, fix: INSTALL_HINT };
}

function tcpReachable(host: string, port: number, timeoutMs = 3000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (err?: string) => {
      socket.destroy();
      resolve(err);
    };
    socket.setTimeout(timeoutMs, () => done('ETIMEDOUT'));
    socket.once('connect', () => done());
    socket.once('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
  });
}

/**
 * Postgres when DATABASE_URL is set: pg_isready when it is installed (a protocol-level answer),
 * else a TCP connection. The password is never passed on a command line nor printed.
 */
export async function checkPostgres(databaseUrl: string, pathVar?: string): Promise<Check> {
  const base = { id: 'engine.postgres', group: 'engines' as const, label: 'Postgres' };
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return { ...base, status: 'fail', detail: 'DATABASE_URL is not a URL', fix: 'set DATABASE_URL=postgres://user@host:5432/db' };
  }
  const shown = redactUrl(databaseUrl);
  const host = url.hostname || '127.0.0.1';
  const port = Number(url.port || 5432);
  const fix = 'start Postgres (systemctl start postgresql) or correct DATABASE_URL';
  const pgIsReady = findBinary('pg_isready', pathVar);
  if (pgIsReady) {
    const args = ['-h', host, '-p', String(port), '-t', '3', ...(url.username ? ['-U', decodeURIComponent(url.username)] : []), ...(url.pathname.length > 1 ? ['-d', decodeURIComponent(url.pathname.slice(1))] : [])];
    const r = await run(pgIsReady, args, { PATH: process.env.PATH ?? '' });
    if (r.code === 0) return { ...base, status: 'ok', detail: `${shown} accepting connections (pg_isready)` };
    const why = r.code === 1 ? 'rejecting connections (starting up?)' : r.code === 2 ? 'no answer' : 'cannot be checked';
    return { ...base, status: 'fail', detail: `${shown} ${why} (pg_isready exit ${r.code})`, fix };
  }
  const err = await tcpReachable(host, port);
  if (!err) return { ...base, status: 'ok', detail: `${shown} reachable over TCP (install postgresql-client for a protocol-level check)` };
  return { ...base, status: 'fail', detail: `${shown} unreachable (${err})`, fix };
}
