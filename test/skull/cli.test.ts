import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Listener } from './support.js';

/**
 * `palabre skull` as a user runs it: a child process through the real CLI dispatcher, with the
 * embedded broker (MQTT_URL unset), no API key (offline persona), JSON logs to SKULL_LOG_FILE.
 * A module hook records every module the process loads: no express, no corpus, no Gemini SDK.
 */
const ROOT = join(import.meta.dirname, '..', '..');

function startCli(dir: string, extraEnv: Record<string, string> = {}): { child: ChildProcess; ready: Promise<string> } {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    MQTT_EMBEDDED_PORT: '0',
    SKULL_LOG_FILE: join(dir, 'ai.log'),
    LOAD_LOG: join(dir, 'loads.txt'),
    DATA_DIR: join(dir, 'data'),
    ...extraEnv,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/skull/fixtures/record-loads.mjs', 'test/skull/fixtures/run-palabre.ts', 'skull'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /ready on (mqtt:\/\/[^\s]+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => reject(new Error(`palabre skull exited ${code}: ${out}${err}`)));
  });
  return { child, ready };
}

describe('palabre skull (child process)', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('runs alone on the embedded broker, answers offline, logs JSON, loads no web/corpus/Gemini code, exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-skull-cli-'));
    const started = startCli(dir);
    child = started.child;
    const url = await started.ready;
    expect(url).toMatch(/^mqtt:\/\/127\.0\.0\.1:\d+$/);

    const l = await Listener.open(url, ['ai/#']);
    const [caps] = await l.waitFor('ai/capabilities');
    expect(caps).toEqual({ models: ['gpt-6.1-terra', 'gpt-6-luna'], lang: 'fr', max_tokens: 512 });
    expect(l.messages[0]!.retain).toBe(true);
    await l.publish('ai/request', JSON.stringify({ text: 'Dis une courte devinette.' }));
    const [usage] = await l.waitFor('ai/usage');
    expect(l.on('ai/response')[0]!.text).toBe('Qu’est-ce qui a des dents mais ne mord jamais\u202f? Un peigne\u202f!');
    expect(usage!.model).toBe('offline');
    await l.close();

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const log = readFileSync(join(dir, 'ai.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(log.some((e) => e.msg === 'palabre skull ready')).toBe(true);
    expect(log.some((e) => e.msg === 'palabre skull stopping')).toBe(true);

    const loads = readFileSync(join(dir, 'loads.txt'), 'utf8').split('\n').filter(Boolean);
    expect(loads.some((u) => u.includes('/transports/mqtt/skullEdge.'))).toBe(true);
    // Of the docs surface only its configuration section (zod only) loads: every command knows every key.
    const forbidden = loads.filter((u) => /node_modules\/(express|@google\/genai|minisearch|@orama|better-sqlite3|marked|sanitize-html|helmet)\/|\/actors\/docs\/(?!docsConfig\.)|\/core\/server\.|\/actors\/llm\/gemini\./.test(u));
    expect(forbidden).toEqual([]);
  }, 60_000);

  it('TUNING_OFF=all: every queued request answered with the runtime tuning off (and the log says which)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-skull-cli-'));
    const started = startCli(dir, { TUNING_OFF: 'all' });
    child = started.child;
    const url = await started.ready;
    const l = await Listener.open(url, ['ai/#']);
    await l.waitFor('ai/capabilities');
    for (const text of ['Question 1', 'Question 2', 'Question 3']) await l.publish('ai/request', JSON.stringify({ text }));
    await l.waitFor('ai/usage', 3);
    expect(l.on('ai/response')).toHaveLength(3);
    expect(l.on('ai/usage').map((u) => u.model)).toEqual(['offline', 'offline', 'offline']);
    await l.close();
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const log = readFileSync(join(dir, 'ai.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(log.find((e) => e.msg === 'runtime tuning off (TUNING_OFF)')?.off).toEqual(['gc-flags', 'jit-budget', 'gc-after-warmup', 'chart-events-after-audio', 'ws-writes-per-tick', 'mqtt-writes-per-turn']);
  }, 60_000);

  it('SKULL_FLEET_PREFIX: one process serves any device under the prefix, with its health under _service; exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-skull-cli-'));
    const started = startCli(dir, { SKULL_FLEET_PREFIX: 'maison', SKULL_FLEET_INSTANCE: 'cli-1' });
    child = started.child;
    const url = await started.ready;
    const l = await Listener.open(url, ['maison/+/ai/#', 'maison/_service/#']);
    await l.publish('maison/salon/ai/request', JSON.stringify({ text: 'Dis une courte devinette.' }));
    await l.publish('maison/cuisine/ai/request', JSON.stringify({ text: 'Dis une courte devinette.' }));
    const [usage] = await l.waitFor('maison/salon/ai/usage');
    await l.waitFor('maison/cuisine/ai/usage');
    expect(usage!.model).toBe('offline');
    expect(l.on('maison/salon/ai/capabilities')[0]).toEqual({ models: ['gpt-6.1-terra', 'gpt-6-luna'], lang: 'fr', max_tokens: 512 });
    expect(l.on('ai/response')).toEqual([]);
    await l.waitMatch('maison/_service/cli-1/health', (h) => h.ok === true);
    await l.close();
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);

  it('says which variable to change when the embedded port is busy (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-skull-cli-'));
    const first = startCli(dir);
    child = first.child;
    const url = await first.ready;
    const port = new URL(url).port;
    const second = startCli(dir, { MQTT_EMBEDDED_PORT: port });
    const code = await new Promise<number | null>((resolve) => second.child.once('exit', resolve));
    second.ready.catch(() => undefined);
    expect(code).toBe(2);
  }, 60_000);
});
