import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnServe, type ServeProcess } from './spawnServe.js';

const dataDir = mkdtempSync(join(tmpdir(), 'palabre-serve-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function holdPort(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('palabre serve (real subprocess)', () => {
  let serve: ServeProcess;
  let base: string;
  let mqttPort: number;

  beforeAll(async () => {
    const [httpPort, brokerPort] = [await freePort(), await freePort()];
    mqttPort = brokerPort;
    serve = spawnServe({ PORT: String(httpPort), MQTT_EMBEDDED_PORT: String(brokerPort), DATA_DIR: join(dataDir, 'main') });
    const [, url] = await serve.waitFor(/health (http:\/\/\S+)\/healthz/);
    base = url!;
    expect(base).toBe(`http://127.0.0.1:${httpPort}`);
  });

  afterAll(() => {
    if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
  });

  it('prints its URLs, one line per surface, and a JSON log line', async () => {
    await serve.waitFor(/"msg":"palabre serving"/); // pino writes asynchronously
    const out = serve.stdout();
    expect(out).toMatch(/palabre \d+\.\d+\.\d+ is serving/);
    expect(out).toMatch(/^\s+core\s+health http:\/\/127\.0\.0\.1:\d+\/healthz\s+metrics http:\/\/127\.0\.0\.1:\d+\/metrics$/m);
    expect(out).toMatch(new RegExp(`^\\s+mqtt\\s+broker mqtt://127\\.0\\.0\\.1:${mqttPort}\\s+\\(embedded\\)$`, 'm'));
    const ready = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; urls?: Record<string, unknown> }).find((l) => l.msg === 'palabre serving');
    expect(ready?.urls).toHaveProperty('core');
  });

  it('answers /healthz with version, uptime, providers per surface, actors, mqtt mode and surfaces', async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.status).toBe('ok');
    expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(typeof body.uptimeS).toBe('number');
    // No key in the environment: every surface is on the offline provider, and it says so.
    expect(body.providers).toEqual({ skull: 'offline', docs: 'offline', corrections: 'offline', t2: 'offline' });
    expect(body.offline).toMatch(/offline provider .* no API key is set/);
    expect(body.actors).toBeTypeOf('object');
    expect(body.mqtt).toBe('embedded');
    expect(body.surfaces).toBeTypeOf('object');
    // Helmet's strict CSP: only 'self'.
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|https:|data:/);
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('serves Prometheus metrics with the palabre_ names', async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    for (const name of ['palabre_llm_calls_total', 'palabre_llm_latency_seconds', 'palabre_llm_retries_total', 'palabre_breaker_open', 'palabre_actors', 'palabre_process_resident_memory_bytes']) {
      expect(text).toContain(`# TYPE ${name}`);
    }
  });

  it('answers unknown /api paths with JSON 404 and never a stack trace', async () => {
    const res = await fetch(`${base}/api/does-not-exist`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual({ error: 'not found' });
    const other = await fetch(`${base}/nothing-here`);
    expect(other.status).toBe(404);
    expect(await other.text()).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it('runs an embedded MQTT broker clients can use (MQTT 3.1.1)', async () => {
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000 });
    try {
      const got = new Promise<string>((resolve) => client.on('message', (_t, payload) => resolve(payload.toString())));
      await client.subscribeAsync('palabre/test', { qos: 1 });
      await client.publishAsync('palabre/test', 'bonjour', { qos: 1 });
      expect(await got).toBe('bonjour');
    } finally {
      await client.endAsync();
    }
  });

  it('shuts down on SIGTERM with exit code 0 within 5 s', async () => {
    const sentAt = Date.now();
    serve.child.kill('SIGTERM');
    const { code, at } = await serve.exited;
    expect(code).toBe(0);
    expect(at - sentAt).toBeLessThan(5000);
    expect(serve.stdout()).toContain('"msg":"stopped"');
  });
});

describe.concurrent('palabre serve refuses to start, with exit code 2 and one clear line', () => {
  it('when the HTTP port is busy, naming the port and PORT', async () => {
    const port = await freePort();
    const holder = await holdPort(port);
    try {
      const serve = spawnServe({ PORT: String(port), MQTT_EMBEDDED_PORT: String(await freePort()), DATA_DIR: join(dataDir, 'busy-http') });
      const { code } = await serve.exited;
      expect(code).toBe(2);
      const lines = serve.stderr().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`port ${port}`);
      expect(lines[0]).toMatch(/already in use \(HTTP\)\. Set PORT /);
    } finally {
      holder.close();
    }
  });

  it('when the embedded MQTT port is busy, naming MQTT_EMBEDDED_PORT', async () => {
    const port = await freePort();
    const holder = await holdPort(port);
    try {
      const serve = spawnServe({ PORT: String(await freePort()), MQTT_EMBEDDED_PORT: String(port), DATA_DIR: join(dataDir, 'busy-mqtt') });
      const { code } = await serve.exited;
      expect(code).toBe(2);
      const lines = serve.stderr().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`port ${port}`);
      expect(lines[0]).toContain('MQTT_EMBEDDED_PORT');
    } finally {
      holder.close();
    }
  });

  it('when the configuration is invalid, listing every bad key and no secret', async () => {
    const serve = spawnServe({ PORT: 'http', LOG_LEVEL: 'chatty', MQTT_EMBEDDED_PORT: '99999', ADMIN_PASSWORD: 'pw-123', DATA_DIR: join(dataDir, 'bad') });
    const { code } = await serve.exited;
    expect(code).toBe(2);
    const err = serve.stderr();
    for (const key of ['PORT', 'LOG_LEVEL', 'MQTT_EMBEDDED_PORT', 'ADMIN_PASSWORD']) expect(err).toMatch(new RegExp(`^\\s+- ${key}: `, 'm'));
    expect(err).not.toContain('pw-123');
    expect(serve.stdout()).toBe('');
  });
});
