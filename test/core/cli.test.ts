import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { COMMANDS, loadCommand, main } from '../../cli/main.js';
import type { CliIo } from '../../cli/io.js';
import { PROJECT_ROOT, VERSION } from '../../core/version.js';

function io(): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) => new Writable({ write(chunk, _enc, cb) { append(String(chunk)); cb(); } });
  return { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)), env: {}, out: () => out, err: () => err };
}

describe('palabre CLI dispatch', () => {
  it('prints the version from package.json', async () => {
    const t = io();
    expect(await main(['--version'], t)).toBe(0);
    expect(t.out().trim()).toBe(VERSION);
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('lists every command in help', async () => {
    const t = io();
    expect(await main(['--help'], t)).toBe(0);
    for (const name of Object.keys(COMMANDS)) expect(t.out()).toContain(`palabre ${name}`);
  });

  it('refuses an unknown command with exit code 2', async () => {
    const t = io();
    expect(await main(['frobnicate'], t)).toBe(2);
    expect(t.err()).toContain('unknown command "frobnicate"');
  });

  it('says "not available in this build" for a command whose file is absent', async () => {
    expect(await loadCommand('no-such-command')).toBeUndefined();
    expect(typeof (await loadCommand('serveCommand'))?.run).toBe('function');
    for (const [name, entry] of Object.entries(COMMANDS)) {
      if (existsSync(join(PROJECT_ROOT, 'cli/commands', `${entry.file}.ts`))) continue;
      const t = io();
      expect(await main([name], t)).toBe(2);
      expect(t.err()).toContain(`"${name}" is not available in this build`);
    }
  });

  it('passes options to serve (the default command)', async () => {
    const t = io();
    expect(await main(['serve', '--help'], t)).toBe(0);
    expect(t.out()).toContain('usage: palabre serve');
    const u = io();
    expect(await main(['--bogus'], u)).toBe(2); // `palabre --bogus` is `palabre serve --bogus`
    expect(u.err()).toContain('palabre serve:');
  });

  it('keeps cli/main.ts free of heavy imports (palabre skull must not load the web server)', () => {
    const source = readFileSync(join(PROJECT_ROOT, 'cli/main.ts'), 'utf8');
    const staticImports = [...source.matchAll(/^import\s.*?from\s+'([^']+)'/gm)].map((m) => m[1]);
    expect(staticImports.length).toBeGreaterThan(0);
    for (const spec of staticImports) expect(spec).toMatch(/^(node:|\.\/io\.js$|\.\/definitions\.js$)/);
    // The command definitions are loaded by every command: they import nothing at all.
    expect(readFileSync(join(PROJECT_ROOT, 'cli/definitions.ts'), 'utf8')).not.toMatch(/^import\s/m);
    const dynamicImports = [...source.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]);
    expect(dynamicImports).toEqual(['../core/version.js']);
  });

  it('parses every command from its definition: --help shows options and exit codes, extra arguments exit 2', async () => {
    const t = io();
    expect(await main(['token', '--help'], t)).toBe(0);
    expect(t.out()).toContain('usage: palabre token --sub ID');
    expect(t.out()).toMatch(/--sub ID\s+the candidate id \(required\)/);
    expect(t.out()).toMatch(/Exit codes:\n {2}0 {2}the token is printed\n {2}1 /);
    const u = io();
    expect(await main(['serve', 'extra'], u)).toBe(2);
    expect(u.err()).toContain('palabre serve: Unexpected argument');
    const v = io();
    expect(await main(['index', 'a', 'b'], v)).toBe(2);
    expect(v.err()).toContain('palabre index: too many arguments (a b)');
    const w = io();
    expect(await main(['sujets', 'remove'], w)).toBe(2);
    expect(w.err()).toContain('unknown action "remove"');
  });
});

describe('isKeySet (is a key given, or left to its default?)', () => {
  it('sees the environment and the JSON file, not defaults or empty values', async () => {
    const { isKeySet } = await import('../../core/config/load.js');
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    expect(isKeySet('CORPUS_DIR', { env: {}, dotenvPath: null })).toBe(false);
    expect(isKeySet('CORPUS_DIR', { env: { CORPUS_DIR: '' }, dotenvPath: null })).toBe(false);
    expect(isKeySet('CORPUS_DIR', { env: { CORPUS_DIR: 'x' }, dotenvPath: null })).toBe(true);
    const file = join(mkdtempSync(join(tmpdir(), 'palabre-keyset-')), 'c.json');
    writeFileSync(file, JSON.stringify({ CORPUS_DIR: 'y' }));
    expect(isKeySet('CORPUS_DIR', { env: {}, file, dotenvPath: null })).toBe(true);
  });
});
