import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import mqtt, { type MqttClient } from 'mqtt';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import type { PalabreConfig } from '../../actors/palabreConfig.js';
import { startEmbeddedBroker } from '../../core/broker.js';
import { createLogger, silentLogger, type Logger } from '../../core/log.js';
import { LlmError, type GenerateRequest, type GenerateResult, type LlmProvider } from '../../machines/llmPort.js';
import { findBinary } from '../support/requires.js';

/** Test support for the Skull suites: brokers, a listening client, scriptable providers. */

export interface TestBroker {
  url: string;
  kind: 'aedes' | 'mosquitto';
  close(): Promise<void>;
}

export async function embeddedBroker(): Promise<TestBroker> {
  const b = await startEmbeddedBroker({ host: '127.0.0.1', port: 0, logger: silentLogger() });
  return { url: b.url, kind: 'aedes', close: () => b.close() };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Debian's mosquitto: MOSQUITTO_URL when CI started one (.ci/run), else our own on a free port.
 * Each test uses a unique topic prefix, so a shared broker is safe.
 */
export async function mosquittoBroker(): Promise<TestBroker> {
  if (process.env.MOSQUITTO_URL) return { url: process.env.MOSQUITTO_URL, kind: 'mosquitto', close: async () => undefined };
  const bin = findBinary('mosquitto');
  if (!bin) throw new Error('mosquitto not installed');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'palabre-mosq-'));
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\nset_tcp_nodelay true\n`);
  const child: ChildProcess = spawn(bin, ['-c', conf], { stdio: 'ignore' });
  const url = `mqtt://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      const c = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 500 });
      await c.endAsync();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    kind: 'mosquitto',
    close: async () => {
      child.kill('SIGTERM');
    },
  };
}

let prefixCounter = 0;
export function uniquePrefix(): string {
  prefixCounter++;
  return `t${process.pid}-${Date.now().toString(36)}-${prefixCounter}`;
}

export function testConfig(overrides: Record<string, string> = {}): PalabreConfig {
  return loadPalabreConfig({
    env: {
      SKULL_PROMPT_FILE: 'prompts/skull/prompt.txt',
      LOG_LEVEL: 'silent',
      // The spec's ids (its cases name them); the shipped defaults differ (docs/providers.md).
      AI_MODEL: 'gpt-5-mini',
      AI_FALLBACK_MODEL: 'gpt-5-nano',
      ...overrides,
    },
    dotenvPath: null,
  });
}

/** A subscriber that collects messages per topic and waits for them. */
export class Listener {
  readonly messages: Array<{ topic: string; payload: string; retain: boolean }> = [];
  private waiters: Array<() => void> = [];
  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      this.messages.push({ topic, payload: payload.toString('utf8'), retain: packet.retain });
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(url: string, topics: string[]): Promise<Listener> {
    const client = await mqtt.connectAsync(url, { reconnectPeriod: 0, protocolVersion: 4 });
    const l = new Listener(client);
    if (topics.length > 0) await client.subscribeAsync(topics, { qos: 1 });
    return l;
  }

  on(topic: string): Array<Record<string, unknown>> {
    return this.messages.filter((m) => m.topic === topic).map((m) => JSON.parse(m.payload) as Record<string, unknown>);
  }

  /** Waits (real time, bounded) until `count` messages arrived on `topic`. */
  async waitFor(topic: string, count = 1, timeoutMs = 5000): Promise<Array<Record<string, unknown>>> {
    const deadline = Date.now() + timeoutMs;
    while (this.on(topic).length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timeout waiting for ${count} on ${topic}; got ${JSON.stringify(this.messages.map((m) => m.topic))}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.on(topic);
  }

  /** Waits (real time, bounded) until a message on `topic` satisfies `pred`. */
  async waitMatch(topic: string, pred: (m: Record<string, unknown>) => boolean, timeoutMs = 5000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.on(topic).find(pred);
      if (hit) return hit;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timeout waiting for a matching message on ${topic}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async publish(topic: string, payload: string | Buffer, opts: { retain?: boolean } = {}): Promise<void> {
    await this.client.publishAsync(topic, payload, { qos: 1, retain: opts.retain ?? false });
  }

  close(): Promise<void> {
    return this.client.endAsync();
  }
}

type Step =
  | { kind: 'reply'; text: string; inputTokens?: number; outputTokens?: number }
  | { kind: 'error'; error: LlmError };

/**
 * A provider whose answers the test scripts. Each call takes the next step (or the default
 * reply); with `manual`, calls wait until the test settles them (for cancel and busy tests).
 */
export class ScriptedProvider implements LlmProvider {
  readonly name = 'offline' as const;
  readonly calls: GenerateRequest[] = [];
  readonly aborted: GenerateRequest[] = [];
  private steps: Step[] = [];
  private pending: Array<{ resolve: (r: GenerateResult) => void; reject: (e: unknown) => void; req: GenerateRequest }> = [];
  manual = false;
  defaultText = 'Bonjour ! Je suis Skull.';

  script(...steps: Step[]): this {
    this.steps.push(...steps);
    return this;
  }

  get waiting(): number {
    return this.pending.length;
  }

  generate(req: GenerateRequest): Promise<GenerateResult> {
    this.calls.push(req);
    if (this.manual) {
      return new Promise((resolve, reject) => {
        const entry = { resolve, reject, req };
        this.pending.push(entry);
        req.signal?.addEventListener('abort', () => {
          this.aborted.push(req);
          this.pending = this.pending.filter((p) => p !== entry);
          reject(new LlmError('aborted', 'aborted', { provider: 'offline' }));
        });
      });
    }
    return this.settle(req);
  }

  /** Settles the oldest waiting call with the next scripted step. */
  release(): void {
    const p = this.pending.shift();
    if (!p) throw new Error('no call waiting');
    this.settle(p.req).then(p.resolve, p.reject);
  }

  private async settle(req: GenerateRequest): Promise<GenerateResult> {
    const step = this.steps.shift() ?? { kind: 'reply', text: this.defaultText };
    if (step.kind === 'error') throw step.error;
    return {
      text: step.text,
      model: req.model,
      provider: 'offline',
      usage: { inputTokens: step.inputTokens ?? 12, outputTokens: step.outputTokens ?? 7, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 0 },
    };
  }
}

export const timeoutError = () => new LlmError('timeout', 'timed out', { provider: 'offline' });
export const serverError = () => new LlmError('server', 'HTTP 503', { provider: 'offline', status: 503 });

/** A pino logger (the real one, redaction included) whose JSON lines are kept in memory. */
export function memoryLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}
