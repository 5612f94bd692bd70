import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import mqtt, { type MqttClient } from 'mqtt';
import { PROJECT_ROOT } from '../../core/version.js';
import { findBinary } from '../support/requires.js';
import { freePort } from '../serve/spawnServe.js';

export { freePort };

/**
 * Support for the fault suite: a mosquitto of our own (never the shared MOSQUITTO_URL one, since
 * these tests kill it) that can be killed and restarted on the same port.
 */

export async function until(pred: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timeout waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export class KillableMosquitto {
  private child: ChildProcess | undefined;
  private constructor(private readonly bin: string, readonly port: number, private readonly dir: string) {}

  static async start(): Promise<KillableMosquitto> {
    const bin = findBinary('mosquitto');
    if (!bin) throw new Error('mosquitto not installed');
    const m = new KillableMosquitto(bin, await freePort(), mkdtempSync(join(tmpdir(), 'palabre-fault-mosq-')));
    await m.up();
    return m;
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  /** (Re)starts it on the same port and resolves once it accepts a connection. */
  async up(): Promise<void> {
    const conf = join(this.dir, 'mosquitto.conf');
    writeFileSync(conf, `listener ${this.port} 127.0.0.1\nallow_anonymous true\npersistence false\nset_tcp_nodelay true\n`);
    this.child = spawn(this.bin, ['-c', conf], { stdio: 'ignore' });
    for (let i = 0; i < 200; i++) {
      try {
        const c = await mqtt.connectAsync(this.url, { reconnectPeriod: 0, connectTimeout: 500 });
        await c.endAsync();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    throw new Error(`mosquitto did not start on ${this.port}`);
  }

  /** kill -9: no clean disconnect for anyone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async close(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `palabre <command>` as a child process (tsx, sources), with only the given settings. */
export function spawnPalabre(command: string, env: Record<string, string>): { child: ChildProcess; stdout: () => string; exited: Promise<{ code: number | null; at: number }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'cli/main.ts'), command], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.resume();
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: Date.now() })));
  return { child, stdout: () => out, exited };
}

/**
 * Connected with every subscription back: after a broker restart without persistence, mqtt.js
 * re-sends its SUBSCRIBEs on reconnect, so `connected` comes before the broker routes anything to
 * the client again; a message published in between is not delivered (QoS 1 to no subscriber).
 */
export function resubscribed(client: MqttClient): boolean {
  return client.connected && Object.keys(client.outgoing).length === 0;
}
