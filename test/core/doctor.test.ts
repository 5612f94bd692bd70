import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as runDoctor } from '../../cli/commands/doctorCommand.js';
import { run as runIndex } from '../../cli/commands/indexCommand.js';
import { configuredSurfaces, type Check } from '../../cli/doctor/check.js';
import { captureIo } from '../support/cliIo.js';
import { makeCorpus } from '../docs/fixtures.js';
import { freePort } from '../serve/spawnServe.js';
import { startOpenAIFake } from '../fakes/openaiFake.js';

/**
 * `palabre doctor` on this machine with one thing missing each time: a DATA_DIR that cannot be
 * created, a port already taken, an MQTT_URL nobody answers, a provider named without its key.
 * Real folders, real sockets, the real embedded broker; nothing mocked.
 */
const io = captureIo;

let dir: string;
let corpus: string;
const base = (): Record<string, string> => ({ PATH: process.env.PATH ?? '', DATA_DIR: join(dir, 'data'), PORT: '0', MQTT_EMBEDDED_PORT: '0', CORPUS_DIR: corpus });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'palabre-doctor-'));
  corpus = makeCorpus();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(corpus, { recursive: true, force: true });
});

async function doctor(env: Record<string, string>, args: string[] = []): Promise<{ code: number; out: string; checks: Check[] }> {
  const t = io(env);
  const code = await runDoctor(args, t);
  const j = io(env);
  await runDoctor([...args, '--json'], j);
  return { code, out: t.out(), checks: (JSON.parse(j.out()) as { checks: Check[] }).checks };
}

/** The table line of `label` and the fix printed under it. */
function lineOf(out: string, label: string): { line: string; fix: string } {
  const lines = out.split('\n');
  const i = lines.findIndex((l) => new RegExp(`^  [✓✗!?] ${label}\\s`).test(l));
  expect(i, `no line for ${label} in:\n${out}`).toBeGreaterThanOrEqual(0);
  return { line: lines[i]!, fix: /^\s+→ /.test(lines[i + 1] ?? '') ? lines[i + 1]!.trim() : '' };
}

function hold(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
}

describe('palabre doctor', () => {
  it('exits 0 when everything the configured surfaces need is there, and never prints a key', async () => {
    const secret = 'sk-doctor-test-0123456789abcdef';
    const fake = await startOpenAIFake();
    // Every model the surfaces call is listed, so every model line is a ✓.
    fake.setModels([{ id: 'gpt-6.1-terra' }, { id: 'gpt-6-luna' }, { id: 'claude-sonnet-5-5' }, { id: 'deepseek-flash' }]);
    let r: Awaited<ReturnType<typeof doctor>>;
    try {
      r = await doctor({ ...base(), OPENAI_API_KEY: secret, OPENAI_BASE_URL: `${fake.url}/v1` });
    } finally {
      await fake.close();
    }
    expect(r.code, r.out).toBe(0);
    expect(lineOf(r.out, 'Node.js').line).toMatch(/✓ Node\.js\s+v\d+\.\d+\.\d+ \(needs ≥ 20\.19\)/);
    expect(lineOf(r.out, 'MQTT broker').line).toMatch(/✓ MQTT broker\s+embedded \(aedes\) starts and answers on 127\.0\.0\.1, MQTT 3\.1\.1/);
    expect(lineOf(r.out, 'docs provider').line).toMatch(/✓ docs provider\s+openai \(OPENAI_API_KEY set\)/);
    // The provider was asked (the wire fake's GET /models) and lists each model.
    expect(lineOf(r.out, 'docs model').line).toMatch(/✓ docs model\s+openai claude-sonnet-5-5 \(CHAT_MODEL\): offered/);
    expect(r.checks.find((c) => c.id === 'surface.skull.model.AI_MODEL')).toMatchObject({ status: 'ok' });
    expect(lineOf(r.out, 'docs corpus').line).toMatch(/✓ docs corpus\s+.* \(CORPUS_DIR\): 3 files, not indexed yet/);
    expect(r.out).not.toContain(secret);
    expect(r.out).toMatch(/Everything the configured surfaces need is there/);
  }, 30_000);

  it('✗ a DATA_DIR that cannot be created, with the fix (exit 1)', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    const r = await doctor({ ...base(), DATA_DIR: join(file, 'data') });
    expect(r.code).toBe(1);
    const { line, fix } = lineOf(r.out, 'data folder');
    expect(line).toMatch(/^ {2}✗ data folder\s+.*a-file\/data cannot be created \(ENOTDIR at .*a-file\)$/);
    expect(fix).toBe(`→ set DATA_DIR to a folder this user can write (now ${join(file, 'data')})`);
    expect(r.checks.find((c) => c.id === 'data.dir')).toMatchObject({ status: 'fail' });
    expect(r.out).toMatch(/problems? \(✗\): apply the fix under each/);
  }, 30_000);

  it('✗ the HTTP port and the embedded broker port when they are taken', async () => {
    const [a, b] = [await hold(), await hold()];
    const portA = (a.address() as { port: number }).port;
    const portB = (b.address() as { port: number }).port;
    try {
      const r = await doctor({ ...base(), PORT: String(portA), MQTT_EMBEDDED_PORT: String(portB) });
      expect(r.code).toBe(1);
      const http = lineOf(r.out, 'HTTP port');
      expect(http.line).toMatch(new RegExp(`✗ HTTP port\\s+127\\.0\\.0\\.1:${portA} already in use \\(EADDRINUSE\\)`));
      expect(http.fix).toBe(`→ set PORT to a free port (e.g. PORT=${portA + 1}), or stop what listens there`);
      const mqtt = lineOf(r.out, 'MQTT port');
      expect(mqtt.line).toMatch(new RegExp(`✗ MQTT port\\s+127\\.0\\.0\\.1:${portB} already in use`));
      expect(mqtt.fix).toContain('set MQTT_EMBEDDED_PORT to a free port');
      expect(mqtt.fix).toContain('or MQTT_URL to use the broker already there');
    } finally {
      a.close();
      b.close();
    }
  }, 30_000);

  it('✗ a model its provider does not list, ! a deprecated one with its shutdown date', async () => {
    const fake = await startOpenAIFake();
    fake.setModels([{ id: 'gpt-5-mini', shutdownDate: '2026-12-11' }, { id: 'claude-sonnet-5-5' }, { id: 'deepseek-flash' }]);
    let r: Awaited<ReturnType<typeof doctor>>;
    try {
      r = await doctor({ ...base(), OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: `${fake.url}/v1`, AI_MODEL: 'gpt-5-mini' });
    } finally {
      await fake.close();
    }
    expect(r.code).toBe(1);
    const deprecated = r.checks.find((c) => c.id === 'surface.skull.model.AI_MODEL');
    expect(deprecated).toMatchObject({ status: 'warn', detail: 'openai gpt-5-mini (AI_MODEL): shuts down on 2026-12-11', fix: 'set AI_MODEL to a current model (docs/providers.md)' });
    const missing = r.checks.find((c) => c.id === 'surface.skull.model.AI_FALLBACK_MODEL');
    expect(missing).toMatchObject({ status: 'fail', fix: 'set AI_FALLBACK_MODEL to a model openai lists (docs/providers.md)' });
    expect(r.out).toMatch(/✗ skull model\s+openai gpt-6-luna \(AI_FALLBACK_MODEL\): not offered by openai/);
  }, 30_000);

  it('? a model list that cannot be read says so, and does not fail the run', async () => {
    const fake = await startOpenAIFake();
    fake.setModels({ status: 503, errorMessage: 'models list unavailable' });
    let r: Awaited<ReturnType<typeof doctor>>;
    try {
      r = await doctor({ ...base(), OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: `${fake.url}/v1` });
    } finally {
      await fake.close();
    }
    expect(r.code, r.out).toBe(0);
    expect(r.checks.find((c) => c.id === 'surface.docs.model.CHAT_MODEL')).toMatchObject({ status: 'unchecked' });
    expect(lineOf(r.out, 'docs model').line).toMatch(/\? docs model\s+openai claude-sonnet-5-5 \(CHAT_MODEL\): could not list openai models/);
  }, 30_000);

  it('✗ an MQTT_URL nobody answers', async () => {
    const port = await freePort();
    const r = await doctor({ ...base(), MQTT_URL: `mqtt://user:hunter2secret@127.0.0.1:${port}` });
    expect(r.code).toBe(1);
    const { line, fix } = lineOf(r.out, 'MQTT broker');
    expect(line).toMatch(new RegExp(`✗ MQTT broker\\s+mqtt://user:\\*\\*\\*@127\\.0\\.0\\.1:${port} unreachable \\(ECONNREFUSED`));
    expect(fix).toMatch(/start that broker .* or unset MQTT_URL to use the embedded broker/);
    expect(r.out).not.toContain('hunter2secret');
    // No embedded broker with MQTT_URL set: its port is not checked.
    expect(r.out).not.toMatch(/MQTT port/);
  }, 30_000);

  it('✗ a surface that names a provider without its key (it would silently answer offline)', async () => {
    const r = await doctor({ ...base(), CHAT_PROVIDER: 'anthropic' });
    expect(r.code).toBe(1);
    const { line, fix } = lineOf(r.out, 'docs provider');
    expect(line).toMatch(/✗ docs provider\s+CHAT_PROVIDER=anthropic but ANTHROPIC_API_KEY unset: it would answer with the offline provider/);
    expect(fix).toBe('→ set ANTHROPIC_API_KEY (environment or .env), or CHAT_PROVIDER=auto to use whichever key is set');
  }, 30_000);

  it('✗ Postgres when DATABASE_URL is set and nothing answers; only the configured surfaces are checked', async () => {
    const port = await freePort();
    const r = await doctor({ ...base(), DATABASE_URL: `postgres://palabre:pw-not-shown@127.0.0.1:${port}/palabre`, SURFACES: 'skull' });
    expect(r.code).toBe(1);
    const { line, fix } = lineOf(r.out, 'Postgres');
    expect(line).toMatch(new RegExp(`✗ Postgres\\s+postgres://palabre:\\*\\*\\*@127\\.0\\.0\\.1:${port}/palabre (no answer|unreachable)`));
    expect(fix).toContain('start Postgres');
    expect(r.out).not.toContain('pw-not-shown');
    expect(r.out).not.toMatch(/docs corpus|docs provider/);
    expect(r.out).toMatch(/SURFACES=skull \(skull\)/);
  }, 30_000);

  it('reports the corpus `palabre index` remembered: files, passages, index age', async () => {
    const env = { ...base() } as Record<string, string>;
    delete env.CORPUS_DIR;
    env.DATA_DIR = join(dir, 'data-remembered');
    expect(await runIndex([corpus], io(env))).toBe(0);
    const r = await doctor(env);
    expect(lineOf(r.out, 'docs corpus').line).toMatch(/✓ docs corpus\s+.* \(indexed last by palabre index\): 3 files, \d+ passages, index \d+ s old$/);
  }, 30_000);

  it('! the query-expansion dictionaries when missing or unreadable, with the install command; ✓ when off', async () => {
    const empty = mkdtempSync(join(dir, 'lex-empty-'));
    const missing = lineOf((await doctor({ ...base(), DOCS_LEXICONS: empty })).out, 'dictionaries');
    expect(missing.line).toMatch(/! dictionaries\s+ranking without query expansion: no dictionary in /);
    expect(missing.fix).toBe(`→ bash actors/retrieval/lexicons/install.sh ${empty} (Debian's FreeDict and MyThes packages), or DOCS_LEXICONS=off`);
    const bad = mkdtempSync(join(dir, 'lex-bad-'));
    writeFileSync(join(bad, 'thes_fr.idx'), 'latin1\n');
    writeFileSync(join(bad, 'thes_fr.dat'), '');
    const r = await doctor({ ...base(), DOCS_LEXICONS: bad });
    expect(lineOf(r.out, 'dictionaries').line).toContain(`dictionary file ${join(bad, 'thes_fr.idx')}, line 1: expected the encoding line "UTF-8"`);
    expect(r.code).toBe(0);
    expect(lineOf((await doctor({ ...base(), DOCS_LEXICONS: 'off' })).out, 'dictionaries').line).toMatch(/✓ dictionaries\s+ranking without query expansion: DOCS_LEXICONS=off/);
  }, 30_000);

  it('reads SURFACES as serve does', () => {
    expect(configuredSurfaces('all').names).toEqual(['skull', 'docs', 'corrections', 't2', 'inspect']);
    expect(configuredSurfaces('none')).toEqual({ names: [], unknown: [] });
    expect(configuredSurfaces(' docs , nope ')).toEqual({ names: ['docs'], unknown: ['nope'] });
  });
});
