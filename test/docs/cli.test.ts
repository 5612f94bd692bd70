import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as runAsk } from '../../cli/commands/ask.js';
import { run as runIndex } from '../../cli/commands/index.js';
import type { CliIo } from '../../cli/io.js';
import { makeCorpus } from './fixtures.js';

function io(env: Record<string, string>): CliIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.on('data', (c: Buffer) => (o += c.toString()));
  stderr.on('data', (c: Buffer) => (e += c.toString()));
  return { stdout, stderr, env, out: () => o, err: () => e };
}

let root: string;
let data: string;
beforeAll(() => {
  root = makeCorpus();
  data = mkdtempSync(join(tmpdir(), 'palabre-cli-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});

describe('palabre index', () => {
  it('writes JSON progress lines when stdout is not a TTY, persists, and skips unchanged files next time', async () => {
    const first = io({ DATA_DIR: data });
    expect(await runIndex([root], first)).toBe(0);
    const lines = first.out().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.event === 'progress')).toHaveLength(3);
    const done = lines.at(-1)!;
    expect(done).toMatchObject({ event: 'done', added: 3, passages: expect.any(Number) });
    expect(existsSync(done.index as string)).toBe(true);
    const second = io({ DATA_DIR: data });
    expect(await runIndex([root], second)).toBe(0);
    expect(JSON.parse(second.out().trim().split('\n').at(-1)!)).toMatchObject({ added: 0, unchanged: 3 });
  });

  it('fails clearly on an empty folder and on bad flags', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'palabre-empty-'));
    const a = io({ DATA_DIR: data });
    expect(await runIndex([empty], a)).toBe(1);
    expect(a.err()).toContain('no Markdown');
    const b = io({ DATA_DIR: data });
    expect(await runIndex(['--nope'], b)).toBe(2);
    rmSync(empty, { recursive: true, force: true });
  });
});

describe('palabre ask', () => {
  it('answers with sources (exit 0) and refuses out of scope (exit 3)', async () => {
    const env = { DATA_DIR: data, CORPUS_DIR: root, CHAT_PROVIDER: 'offline', LOG_LEVEL: 'silent' };
    const a = io(env);
    expect(await runAsk(['Combien de temps conserver un dossier médical ?'], a)).toBe(0);
    expect(a.out()).toContain('20 ans');
    expect(a.out()).toContain('rgpd/14-conservation.md › Fiche n°14 : Gérer la durée de conservation › Exemples');
    const b = io(env);
    expect(await runAsk(['--json', 'How do I factory reset an iPhone?'], b)).toBe(3);
    expect(JSON.parse(b.out())).toMatchObject({ state: 'outOfScope', outOfScope: true, sources: [] });
  });
});
