import { closeSync, ftruncateSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * The journal's spill file, beside a SQLite store's file: `<db>-journal-<pid>`, one JSON line per
 * write made while an effect waits (core/journal/durable.ts). Appending a line is one write() of a
 * few kilobytes: once it returns, the OS holds it, and a process killed then loses nothing (a power
 * loss may: nothing here calls fsync). A SQLite transaction at that moment costs several times as
 * much (each commit appends whole 4 KB pages to the WAL, copied again at the checkpoint).
 *
 * The batch that writes the same steps to SQLite empties the file right after its commit, in the
 * same synchronous run. What a killed process left is moved into SQLite by the next one to open
 * the journal with its file (`palabre serve` at start, `palabre journal`, `palabre replay`): a
 * spill file whose process is still alive is its own and left alone.
 */
export class Spill {
  private fd: number | undefined;
  private bytes = 0;

  constructor(readonly path: string) {}

  /** One file per recorder: `<db>-journal-<pid>`, then `-<pid>-2`… for a second recorder of the process (the bench). */
  static pathFor(dbFile: string): string {
    const n = ++opened;
    return n === 1 ? `${dbFile}-journal-${process.pid}` : `${dbFile}-journal-${process.pid}-${n}`;
  }

  /** Written when this returns (synchronous). */
  append(batch: unknown): void {
    this.fd ??= openSync(this.path, 'a');
    const line = `${JSON.stringify(batch)}\n`;
    writeSync(this.fd, line);
    this.bytes += line.length;
  }

  /** After the batch holding every spilled step is committed. */
  clear(): void {
    if (this.fd === undefined || this.bytes === 0) return;
    ftruncateSync(this.fd, 0);
    this.bytes = 0;
  }

  /** Once everything is in SQLite: the file goes. */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    if (this.bytes === 0) removeSpill(this.path);
  }
}

let opened = 0;

/** Spill files of `dbFile` whose process is gone. */
export function orphanSpills(dbFile: string): string[] {
  const prefix = `${basename(dbFile)}-journal-`;
  let names: string[];
  try {
    names = readdirSync(dirname(dbFile));
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)(-\d+)?$/.exec(name.slice(prefix.length))?.[1]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue;
    out.push(join(dirname(dbFile), name));
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The batches of a spill file, in order; a line cut short ends it. */
export function readSpill(path: string): unknown[] {
  const out: unknown[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as unknown);
    } catch {
      break;
    }
  }
  return out;
}

export function removeSpill(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
