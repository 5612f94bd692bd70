import { accessSync, constants, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import type { Check } from './check.js';

/** The oldest Node.js palabre runs on (package.json "engines"). */
const MIN_NODE = [20, 19] as const;

export function checkNode(version = process.versions.node): Check {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return {
    id: 'node', group: 'system', label: 'Node.js', status: ok ? 'ok' : 'fail',
    detail: `v${version} (needs ≥ ${MIN_NODE.join('.')})`,
    ...(ok ? {} : { fix: `install Node.js ${MIN_NODE.join('.')} or later (https://nodejs.org), then npm install again` }),
  };
}

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8).padStart(3, '0');
}

function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Bytes under `dir` (recordings and indexes grow there); stops counting after `limit` entries. */
function folderSize(dir: string, limit = 20_000): { bytes: number; complete: boolean } {
  let bytes = 0;
  let seen = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > limit) return { bytes, complete: false };
      const p = join(current, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.isFile()) bytes += statSync(p, { throwIfNoEntry: false })?.size ?? 0;
    }
  }
  return { bytes, complete: true };
}

/** The nearest existing ancestor of `path` (what `mkdir -p` would start from). */
function existingAncestor(path: string): string {
  let p = resolve(path);
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
}

/**
 * DATA_DIR: it exists and a file can be written in it (tried for real: permission bits alone lie
 * for root, ACLs and read-only mounts), or it can be created.
 */
export function checkDataDir(dataDir: string): Check {
  const abs = resolve(dataDir);
  const base = { id: 'data.dir', group: 'system' as const, label: 'data folder' };
  const fix = `set DATA_DIR to a folder this user can write (now ${abs})`;
  if (existsSync(abs)) {
    if (!statSync(abs).isDirectory()) return { ...base, status: 'fail', detail: `${abs} is not a folder`, fix };
    try {
      rmSync(mkdtempSync(join(abs, '.doctor-')), { recursive: true });
    } catch (err) {
      return { ...base, status: 'fail', detail: `${abs} is not writable (${(err as NodeJS.ErrnoException).code ?? 'error'}, mode ${mode(abs)})`, fix };
    }
    const size = folderSize(abs);
    return { ...base, status: 'ok', detail: `${abs} writable, ${size.complete ? '' : 'over '}${humanSize(size.bytes)} (mode ${mode(abs)})` };
  }
  const ancestor = existingAncestor(abs);
  try {
    if (!statSync(ancestor).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    accessSync(ancestor, constants.W_OK);
    return { ...base, status: 'ok', detail: `${abs} does not exist yet; it will be created in ${ancestor}` };
  } catch (err) {
    return { ...base, status: 'fail', detail: `${abs} cannot be created (${(err as NodeJS.ErrnoException).code ?? 'error'} at ${ancestor})`, fix };
  }
}

/** The SQLite file: present or not yet, its size and modes, and the WAL companions next to it. */
export function checkSqlite(dbPath: string): Check {
  const abs = resolve(dbPath);
  const base = { id: 'data.sqlite', group: 'system' as const, label: 'SQLite file' };
  if (!existsSync(abs)) {
    // Its folder is DATA_DIR's check (or DB_PATH's own folder): creation happens at start.
    const ancestor = existingAncestor(dirname(abs));
    try {
      accessSync(ancestor, constants.W_OK);
      return { ...base, status: 'ok', detail: `${abs} will be created at the first start` };
    } catch (err) {
      return { ...base, status: 'fail', detail: `${abs} cannot be created (${(err as NodeJS.ErrnoException).code ?? 'error'} at ${ancestor})`, fix: 'set DB_PATH (or DATA_DIR) to a writable place' };
    }
  }
  const st = statSync(abs);
  if (!st.isFile()) return { ...base, status: 'fail', detail: `${abs} is not a file`, fix: 'set DB_PATH to a file path, or remove what is there' };
  try {
    accessSync(abs, constants.R_OK | constants.W_OK);
  } catch (err) {
    return { ...base, status: 'fail', detail: `${abs} is not writable (${(err as NodeJS.ErrnoException).code ?? 'error'}, mode ${mode(abs)})`, fix: `chmod u+rw ${abs}, or run palabre as its owner` };
  }
  const wal = existsSync(`${abs}-wal`) ? statSync(`${abs}-wal`).size : 0;
  const detail = `${abs} ${humanSize(st.size)}${wal ? ` (+ ${humanSize(wal)} WAL)` : ''}, mode ${mode(abs)}`;
  // Candidates' transcripts and reports live there: readable by every local user is worth a warning.
  if ((st.mode & 0o004) !== 0) return { ...base, status: 'warn', detail: `${detail}, readable by every user of this machine`, fix: `chmod 600 ${abs}` };
  return { ...base, status: 'ok', detail };
}

/** Whether host:port can be listened on now (listen, then close at once). */
function probeListen(host: string, port: number): Promise<{ ok: true } | { ok: false; code: string }> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => done({ ok: false, code: err.code ?? 'ERROR' }));
    server.listen(port, host, () => server.close(() => done({ ok: true })));
  });
}

export async function checkPort(id: string, label: string, host: string, port: number, variable: string, alternative = ''): Promise<Check> {
  const base = { id, group: 'network' as const, label };
  if (port === 0) return { ...base, status: 'ok', detail: `${host}:0 (a free port is chosen at start)` };
  const r = await probeListen(host, port);
  if (r.ok) return { ...base, status: 'ok', detail: `${host}:${port} free` };
  const why = r.code === 'EADDRINUSE' ? 'already in use' : r.code === 'EACCES' ? 'not allowed for this user (ports below 1024 need privileges)' : r.code;
  return { ...base, status: 'fail', detail: `${host}:${port} ${why} (${r.code})`, fix: `set ${variable} to a free port (e.g. ${variable}=${port + 1})${alternative}, or stop what listens there` };
}
