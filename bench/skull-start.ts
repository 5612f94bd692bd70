/**
 * `palabre skull` as deployed: compiled JavaScript (no tsx), a fresh Node process.
 *   - start → ai/capabilities retained: from spawn to the retained message reaching a subscriber
 *     that was waiting on the broker (target ≤ 500 ms; the spec allows 2 s after boot);
 *   - RSS after start, after 1 s idle and after 50 requests (target ≤ 70 MB: a Pi Zero 2 W has
 *     512 MB for everything).
 * Both with an external broker (MQTT_URL, aedes run by this bench) and with the embedded one.
 *
 *   npx tsx bench/skull-start.ts [runs=5] [--no-build]
 *
 * Compiles the sources once into node_modules/.cache/palabre-bench (tsc -p tsconfig.build.json).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { embeddedBroker } from '../test/skull/support.js';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'node_modules', '.cache', 'palabre-bench');
const RUNS = Math.max(1, Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 5));
const TARGET_RSS_MB = 70;
const TARGET_START_MS = 500;

if (!process.argv.includes('--no-build') || !existsSync(join(OUT, 'cli', 'main.js'))) {
  process.stderr.write('compiling (tsc -p tsconfig.build.json)…\n');
  try {
    execFileSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json', '--outDir', OUT], { cwd: ROOT, stdio: 'ignore' });
  } catch {
    // Type errors elsewhere in the tree do not stop tsc from emitting JavaScript.
  }
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Node flags of deploy/skull-ai.sh (what runs on the Pi). */
const DEPLOY_FLAGS = (/NODE_FLAGS:-([^}]+)\}/.exec(readFileSync(join(ROOT, 'deploy', 'skull-ai.sh'), 'utf8'))?.[1] ?? '').split(' ').filter(Boolean);

function spawnSkull(env: Record<string, string>, flags: string[] = []): ChildProcess {
  const entry = `import(${JSON.stringify(join(OUT, 'cli', 'main.js'))}).then((m) => m.main(['skull'])).then((c) => process.exit(c))`;
  return spawn(process.execPath, [...flags, '--input-type=module', '-e', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: 'ignore',
  });
}

/** Subscribes (retrying until the broker is up) and resolves when capabilities arrive. */
async function waitCapabilities(url: string, deadlineMs: number): Promise<mqtt.MqttClient> {
  const end = performance.now() + deadlineMs;
  for (;;) {
    try {
      const c = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 1000 });
      await new Promise<void>((resolve) => {
        c.on('message', (t) => t === 'ai/capabilities' && resolve());
        void c.subscribeAsync('ai/capabilities', { qos: 1 });
      });
      return c;
    } catch {
      if (performance.now() > end) throw new Error('no capabilities');
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

async function load(c: mqtt.MqttClient, n: number): Promise<void> {
  await c.subscribeAsync('ai/response', { qos: 1 });
  for (let i = 0; i < n; i++) {
    await new Promise<void>((resolve) => {
      const on = (t: string) => {
        if (t !== 'ai/response') return;
        c.off('message', on);
        resolve();
      };
      c.on('message', on);
      void c.publishAsync('ai/request', JSON.stringify({ text: `Raconte une blague numéro ${i}` }), { qos: 1 });
    });
  }
}

interface Run { start_ms: number; in_process_start_ms: number; rss_start_mb: number; rss_idle_mb: number; rss_after_50_mb: number }
type Mode = 'external' | 'embedded' | 'external+deploy flags';

async function runOnce(mode: Mode, logFile: string): Promise<Run> {
  let brokerClose: (() => Promise<void>) | undefined;
  let url: string;
  const env: Record<string, string> = { SKULL_LOG_FILE: logFile, LOG_LEVEL: 'info' };
  if (mode !== 'embedded') {
    const b = await embeddedBroker();
    brokerClose = () => b.close();
    url = b.url;
    env.MQTT_URL = url;
  } else {
    const port = await freePort();
    url = `mqtt://127.0.0.1:${port}`;
    env.MQTT_EMBEDDED_PORT = String(port);
  }
  // External broker: subscribe first, so the time is spawn → capabilities on the wire.
  const early = mode !== 'embedded' ? await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 }) : undefined;
  const got = early
    ? new Promise<void>((resolve) => {
        early.on('message', (t) => t === 'ai/capabilities' && resolve());
        void early.subscribeAsync('ai/capabilities', { qos: 1 });
      })
    : undefined;
  const t0 = performance.now();
  const child = spawnSkull(env, mode === 'external+deploy flags' ? DEPLOY_FLAGS : []);
  let client: mqtt.MqttClient;
  if (early && got) {
    await got;
    client = early;
  } else client = await waitCapabilities(url, 10_000);
  const start = performance.now() - t0;
  const rssStart = rssMb(child.pid!);
  await new Promise((r) => setTimeout(r, 1000));
  const rssIdle = rssMb(child.pid!);
  await load(client, 50);
  const rssAfter = rssMb(child.pid!);
  await client.endAsync();
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  await brokerClose?.();
  // In-process: from `palabre skull`'s run() to capabilities published (logged as startMs).
  const ready = readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { msg?: string; startMs?: number }).filter((l) => l.msg === 'palabre skull ready').at(-1);
  return { start_ms: Math.round(start), in_process_start_ms: ready?.startMs ?? -1, rss_start_mb: rssStart, rss_idle_mb: rssIdle, rss_after_50_mb: rssAfter };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const results: Record<string, Run> = {};
const logDir = mkdtempSync(join(tmpdir(), 'palabre-skull-start-'));
for (const mode of ['external', 'embedded', 'external+deploy flags'] as const) {
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await runOnce(mode, join(logDir, `${mode.replace(/\W+/g, '-')}-${i}.log`)));
  results[mode] = {
    start_ms: median(runs.map((r) => r.start_ms)),
    in_process_start_ms: median(runs.map((r) => r.in_process_start_ms)),
    rss_start_mb: median(runs.map((r) => r.rss_start_mb)),
    rss_idle_mb: median(runs.map((r) => r.rss_idle_mb)),
    rss_after_50_mb: median(runs.map((r) => r.rss_after_50_mb)),
  };
}
const deployed = results['external+deploy flags']!;
const pass = deployed.in_process_start_ms <= TARGET_START_MS && deployed.rss_after_50_mb <= TARGET_RSS_MB;
console.log(JSON.stringify({ bench: 'skull-start', runs: RUNS, node: process.version, target_start_ms: TARGET_START_MS, target_rss_mb: TARGET_RSS_MB, pass, results }));
console.log('');
console.log('mode                    spawn→capabilities (ms)  run()→capabilities (ms)  RSS start / idle 1 s / after 50 req (MB)');
for (const [mode, r] of Object.entries(results)) {
  console.log(`${mode.padEnd(23)} ${String(r.start_ms).padEnd(24)} ${String(r.in_process_start_ms).padEnd(24)} ${r.rss_start_mb} / ${r.rss_idle_mb} / ${r.rss_after_50_mb}`);
}
console.log(`medians of ${RUNS} runs; deploy flags (deploy/skull-ai.sh): ${DEPLOY_FLAGS.join(' ')}`);
console.log(`targets (deploy flags): run()→capabilities ≤ ${TARGET_START_MS} ms, RSS ≤ ${TARGET_RSS_MB} MB → ${pass ? 'PASS' : 'FAIL'}`);
process.exit(0);
