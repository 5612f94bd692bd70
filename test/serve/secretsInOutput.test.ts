import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmbeddedBroker, type EmbeddedBroker } from '../../core/broker.js';
import { redactLine, redactUrl, silentLogger } from '../../core/log.js';
import { spawnPalabre, until } from '../faults/support.js';
import { freePort, spawnServe } from './spawnServe.js';

/**
 * What `palabre serve` and `palabre skull` print and log when MQTT_URL carries a password: the
 * password never appears (banner, log lines, LOG_FILE), and LOG_FILE is created readable by its
 * owner only. Real processes, a real broker that takes any credentials.
 */
const PASSWORD = 'hunter22-broker-secret';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function broker(): Promise<{ broker: EmbeddedBroker; url: string }> {
  const b = await startEmbeddedBroker({ host: '127.0.0.1', port: 0, logger: silentLogger() });
  cleanups.push(() => b.close());
  const port = new URL(b.url).port;
  return { broker: b, url: `mqtt://skull-user:${PASSWORD}@127.0.0.1:${port}` };
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-secrets-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('one redaction for every URL', () => {
  it('hides the password and secret query values, keeps what says which server it is', () => {
    expect(redactUrl(`mqtt://skull-user:${PASSWORD}@broker.local:1883`)).toBe('mqtt://skull-user:***@broker.local:1883');
    expect(redactUrl(`mqtts://u:${PASSWORD}@broker.local:8883/`)).toBe('mqtts://u:***@broker.local:8883/');
    expect(redactUrl(`postgres://palabre:${PASSWORD}@db:5432/palabre?sslmode=require`)).toBe('postgres://palabre:***@db:5432/palabre?sslmode=require');
    expect(redactUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(redactUrl('ws://h/t2/live?sujet=x&token=eyJabc.def.ghi')).toBe('ws://h/t2/live?sujet=x&token=[redacted]');
    expect(redactUrl('https://h/v1?key=AIzaSomething&alt=sse')).toBe('https://h/v1?key=[redacted]&alt=sse');
    // Not a URL the parser takes: the text rules still apply.
    expect(redactUrl(`mqtt://u:${PASSWORD}@bad host`)).not.toContain(PASSWORD);
  });

  it('a log line quoting a URL with a password loses the password, wherever it is', () => {
    const line = JSON.stringify({ msg: 'x', mqttUrl: `mqtt://u:${PASSWORD}@h:1883`, nested: { text: `connect to postgresql://a:${PASSWORD}@db/x failed` } });
    const out = redactLine(line);
    expect(out).not.toContain(PASSWORD);
    expect(JSON.parse(out)).toMatchObject({ mqttUrl: 'mqtt://u:***@h:1883', nested: { text: 'connect to postgresql://a:***@db/x failed' } });
  });
});

describe('MQTT_URL with a password, in what the processes print and log', () => {
  it('palabre serve: banner and « palabre serving » line without it; LOG_FILE created 0600', async () => {
    const { url } = await broker();
    const dir = tempDir();
    const logFile = join(dir, 'logs', 'palabre.log');
    const port = await freePort();
    const serve = spawnServe({ PORT: String(port), DATA_DIR: join(dir, 'data'), MQTT_URL: url, SURFACES: 'skull', JWT_SECRET: 'secrets-test-0123456789abcdef0123', LOG_FILE: logFile });
    cleanups.push(async () => {
      if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
      await serve.exited;
    });
    await serve.waitFor(/is serving/, 60_000);
    await until(() => readFileSync(logFile, 'utf8').includes('palabre serving'), 'the « palabre serving » log line', 20_000);
    serve.child.kill('SIGTERM');
    await serve.exited;
    const banner = serve.stdout() + serve.stderr();
    expect(banner).toContain('skull-user:***@127.0.0.1');
    expect(banner).not.toContain(PASSWORD);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('palabre serving');
    expect(log).not.toContain(PASSWORD);
    expect(statSync(logFile).mode & 0o777).toBe(0o600);
  }, 90_000);

  it('palabre skull: banner and « palabre skull ready » line without it; SKULL_LOG_FILE created 0600', async () => {
    const { url } = await broker();
    const dir = tempDir();
    const logFile = join(dir, 'ai.log');
    const skull = spawnPalabre('skull', { MQTT_URL: url, SKULL_LOG_FILE: logFile, DATA_DIR: join(dir, 'data') });
    cleanups.push(async () => {
      if (skull.child.exitCode === null) skull.child.kill('SIGKILL');
      await skull.exited;
    });
    // SIGTERM the moment the banner arrives, as a supervisor would: the « ready » line logged right
    // after it must still reach the file, and the stop must be the graceful one (exit 0, not killed).
    await new Promise<void>((resolve) => {
      const onData = () => {
        if (!skull.stdout().includes('palabre skull ready')) return;
        skull.child.stdout!.off('data', onData);
        skull.child.kill('SIGTERM');
        resolve();
      };
      skull.child.stdout!.on('data', onData);
    });
    expect((await skull.exited).code).toBe(0);
    expect(skull.stdout()).toContain('ready on mqtt://skull-user:***@127.0.0.1');
    expect(skull.stdout()).not.toContain(PASSWORD);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('palabre skull ready');
    expect(log).not.toContain(PASSWORD);
    expect(statSync(logFile).mode & 0o777).toBe(0o600);
  }, 90_000);
});
