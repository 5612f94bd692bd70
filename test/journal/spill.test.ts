import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JOURNAL_MIGRATIONS, JournalStore } from '../../core/journal/store.js';
import type { JournalStep } from '../../core/journal/step.js';
import { Spill } from '../../core/journal/spill.js';
import { openStore } from '../../core/store/db.js';
import { openAppStore } from '../../core/store/appStore.js';

/**
 * What a killed process left in its spill file is moved into the SQLite file by the next opening
 * of the journal with that file; a line cut short ends the file; a live process's file is left
 * alone.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const step = (seq: number, status = 'active'): JournalStep => ({ seq, at: seq, from: 'edge', event: { type: `e${seq}` }, actions: [], invoked: [], state: status === 'partial' ? null : 's', status });
const head = { id: 'c1', systemId: 'sys-c1', surface: 'skull', machine: 'skull', startedAt: '2026-12-02T00:00:00.000Z', startMs: 0, endedAt: null, lastAt: '2026-12-02T00:00:00.000Z', steps: 1, input: null };

async function open(file: string) {
  const db = openStore({ path: file });
  return { journal: new JournalStore(await openAppStore({ db, migrations: JOURNAL_MIGRATIONS }), { file }), close: () => db.close() };
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('journal spill file', () => {
  it('a dead process’s spill is moved into the database on opening, the line it was writing when killed ignored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-spill-'));
    dirs.push(dir);
    const file = join(dir, 'palabre.db');
    const spill = `${file}-journal-${deadPid()}`;
    writeFileSync(spill, `${JSON.stringify({ conversations: [head], steps: [{ conversationId: 'c1', step: step(0) }, { conversationId: 'c1', step: step(1, 'partial') }] })}\n`);
    // The step ended, then the next began: the whole version of 1 replaces its partial one.
    appendFileSync(spill, `${JSON.stringify({ conversations: [], steps: [{ conversationId: 'c1', step: step(1) }, { conversationId: 'c1', step: step(2, 'partial') }] })}\n`);
    appendFileSync(spill, '{"conversations":[],"steps":[{"conversationId":"c1","step":{"seq":3');
    const { journal, close } = await open(file);
    try {
      expect((await journal.list()).map((c) => [c.id, c.steps])).toEqual([['c1', 3]]);
      expect(existsSync(spill)).toBe(false);
      expect((await journal.get('c1'))!.steps.map((s) => [s.seq, s.status])).toEqual([[0, 'active'], [1, 'active'], [2, 'partial']]);
    } finally {
      close();
    }
  });

  it('a live process’s spill file is left alone, and a recorder’s own file goes when it is empty at close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-spill-'));
    dirs.push(dir);
    const file = join(dir, 'palabre.db');
    const live = `${file}-journal-${process.ppid}`;
    writeFileSync(live, `${JSON.stringify({ conversations: [head], steps: [{ conversationId: 'c1', step: step(0) }] })}\n`);
    const { journal, close } = await open(file);
    try {
      expect(await journal.list()).toEqual([]);
      expect(existsSync(live)).toBe(true);
    } finally {
      close();
    }
    const own = new Spill(Spill.pathFor(file));
    own.append({ conversations: [], steps: [] });
    expect(existsSync(own.path)).toBe(true);
    own.clear();
    own.close();
    expect(existsSync(own.path)).toBe(false);
  });
});
