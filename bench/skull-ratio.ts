/**
 * The real `palabre skull` process against a minimal hand-written responder
 * (bench/support/skull-responder.mjs), as a same-run ratio (bench/README.md). Same broker, same client, same requests:
 *   - request → reply: ai/request published → ai/response received, blocks of BLOCK requests
 *     interleaved (responder, palabre, responder, palabre…), ratio of the medians of the block
 *     medians; both with Node's default flags (what `palabre skull` runs without deploy/skull-ai.sh);
 *   - RSS (VmRSS, and the peak VmHWM) after 1,000 requests with the deploy flags.
 * palabre runs compiled (tsc into node_modules/.cache/palabre-bench, as bench/skull-start.ts does);
 * the broker is Debian mosquitto when installed (a separate process), else aedes in this process.
 *
 *   npx tsx bench/skull-ratio.ts [rounds=5] [block=200] [--no-build] [--cpu-prof DIR] [--node-flags=FLAGS]
 *
 * `--node-flags=…` adds node flags to the latency process only (`--node-flags=--interrupt-budget=67584`, V8's
 * default: `palabre skull` without its own JIT setting, core/tuning/jitBudgetForSkull.ts, which a command-line
 * value overrides). `TUNING_OFF=…` in the environment is passed to both palabre processes
 * (docs/runtime-tuning.md): `TUNING_OFF=mqtt-writes-per-turn` measures without the write holding.
 *
 * Targets: ratio ≤ 2, RSS after 1,000 requests ≤ 70 MB (deploy flags).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import mqtt, { type MqttClient } from 'mqtt';
import { embeddedBroker, mosquittoBroker, type TestBroker } from '../test/skull/support.js';
import { findBinary } from '../test/support/requires.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'no-build': { type: 'boolean', default: false }, 'cpu-prof': { type: 'string' }, 'node-flags': { type: 'string', default: '' } } });
const ROUNDS = Number(positionals[0] ?? 5);
const BLOCK = Number(positionals[1] ?? 200);
const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'node_modules', '.cache', 'palabre-bench');
const DEPLOY_FLAGS = (/NODE_FLAGS:-([^}]+)\}/.exec(readFileSync(join(ROOT, 'deploy', 'skull-ai.sh'), 'utf8'))?.[1] ?? '').split(' ').filter(Boolean);

if (!values['no-build'] || !existsSync(join(OUT, 'cli', 'main.js'))) {
  process.stderr.write('compiling (tsc -p tsconfig.build.json)…\n');
  try {
    execFileSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json', '--outDir', OUT], { cwd: ROOT, stdio: 'ignore' });
  } catch {
    // Type errors elsewhere do not stop tsc from emitting JavaScript.
  }
}

const status = (pid: number, key: string): number => Math.round((Number(new RegExp(`${key}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024) * 10) / 10;

function spawnSkull(url: string, prefix: string, flags: string[]): ChildProcess {
  const entry = `import(${JSON.stringify(join(OUT, 'cli', 'main.js'))}).then((m) => m.main(['skull'])).then((c) => process.exit(c))`;
  const prof = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof']] : [];
  return spawn(process.execPath, [...flags, ...prof, '--input-type=module', '-e', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), DATA_DIR: mkdtempSync(join(tmpdir(), 'palabre-skull-ratio-')), MQTT_URL: url, SKULL_TOPIC_PREFIX: prefix, SKULL_PROVIDER: 'offline', SKULL_DEBOUNCE_MS: '0', SKULL_DEVICE_ID: `skull-${prefix}`, ...(process.env.TUNING_OFF ? { TUNING_OFF: process.env.TUNING_OFF } : {}) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

function spawnResponder(url: string, prefix: string, protocol: number): ChildProcess {
  return spawn(process.execPath, [join(ROOT, 'bench', 'support', 'skull-responder.mjs')], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', MQTT_URL: url, PREFIX: prefix, MQTT_PROTOCOL: String(protocol) }, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** One request: publish, time to ai/response, then wait for ai/usage so that turns never overlap. */
async function request(c: MqttClient, prefix: string, i: number): Promise<number> {
  return new Promise((resolve) => {
    let t = 0;
    const on = (topic: string): void => {
      if (topic === `${prefix}/ai/response`) t = performance.now() - t0;
      else if (topic === `${prefix}/ai/usage`) {
        c.off('message', on);
        resolve(t);
      }
    };
    c.on('message', on);
    const t0 = performance.now();
    void c.publishAsync(`${prefix}/ai/request`, JSON.stringify({ text: `Raconte une blague numéro ${i}` }), { qos: 1 });
  });
}

/** Waits until the service answers (it subscribes some time after spawn). */
async function warm(c: MqttClient, prefix: string): Promise<void> {
  await c.subscribeAsync([`${prefix}/ai/response`, `${prefix}/ai/usage`], { qos: 1 });
  for (;;) {
    const got = await Promise.race([request(c, prefix, -1).then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 500))]);
    if (got) return;
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

const broker: TestBroker = findBinary('mosquitto') ? await mosquittoBroker() : await embeddedBroker();
const protocol = broker.kind === 'mosquitto' ? 5 : 4;
const client = await mqtt.connectAsync(broker.url, { protocolVersion: protocol, reconnectPeriod: 0 });
(client.stream as { setNoDelay?: (v: boolean) => void }).setNoDelay?.(true);

// 1. Latency, Node default flags, interleaved blocks.
const skull = spawnSkull(broker.url, 'p', values['node-flags'].split(' ').filter(Boolean));
const responder = spawnResponder(broker.url, 'b', protocol);
await warm(client, 'p');
await warm(client, 'b');
for (let i = 0; i < 100; i++) {
  await request(client, 'p', i);
  await request(client, 'b', i);
}
const blocks: { palabre: number[]; baseline: number[]; load: number }[] = [];
const all = { palabre: [] as number[], baseline: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  const block = { palabre: [] as number[], baseline: [] as number[], load: loadavg()[0] ?? 0 };
  for (let i = 0; i < BLOCK; i++) block.baseline.push(await request(client, 'b', i));
  for (let i = 0; i < BLOCK; i++) block.palabre.push(await request(client, 'p', i));
  all.palabre.push(...block.palabre);
  all.baseline.push(...block.baseline);
  blocks.push(block);
  process.stderr.write(`round ${r + 1}: responder p50 ${r3(median(block.baseline))} ms, palabre p50 ${r3(median(block.palabre))} ms, load ${block.load.toFixed(2)}\n`);
}
const exitOf = (c: ChildProcess) => new Promise((r) => c.once('exit', r));
const gone = Promise.all([exitOf(skull), exitOf(responder)]);
skull.kill('SIGTERM');
responder.kill('SIGTERM');
await gone;

// 2. RSS after 1,000 requests, deploy flags.
const deployed = spawnSkull(broker.url, 'd', DEPLOY_FLAGS);
await warm(client, 'd');
const rssStart = status(deployed.pid!, 'VmRSS');
for (let i = 0; i < 1000; i++) await request(client, 'd', i);
const rss1000 = status(deployed.pid!, 'VmRSS');
const hwm = status(deployed.pid!, 'VmHWM');
const deployedGone = exitOf(deployed);
deployed.kill('SIGTERM');
await deployedGone;
await client.endAsync();
await broker.close();

const p50 = { palabre: median(blocks.map((b) => median(b.palabre))), baseline: median(blocks.map((b) => median(b.baseline))) };
const ratio = r3(p50.palabre / p50.baseline);
const result = {
  bench: 'skull-ratio',
  broker: broker.kind,
  mqtt: protocol === 5 ? '5' : '3.1.1',
  rounds: ROUNDS,
  block: BLOCK,
  node: process.version,
  node_flags: values['node-flags'],
  responder_p50_ms: r3(p50.baseline),
  palabre_p50_ms: r3(p50.palabre),
  overhead_p50_ms: r3(p50.palabre - p50.baseline),
  ratio_p50: ratio,
  responder_p99_ms: r3(pct(all.baseline, 99)),
  palabre_p99_ms: r3(pct(all.palabre, 99)),
  ratio_p99: r3(pct(all.palabre, 99) / pct(all.baseline, 99)),
  deploy_flags: DEPLOY_FLAGS.join(' '),
  rss_start_mb: rssStart,
  rss_after_1000_mb: rss1000,
  rss_peak_mb: hwm,
  loadavg1m: blocks.map((b) => r3(b.load)),
  pass: ratio <= 2 && rss1000 <= 70,
};
console.log(JSON.stringify(result));
console.log(`request→reply p50: responder ${result.responder_p50_ms} ms, palabre ${result.palabre_p50_ms} ms → ${ratio}× (target ≤ 2); p99 ${result.responder_p99_ms} / ${result.palabre_p99_ms} ms`);
console.log(`RSS with ${result.deploy_flags}: ${rssStart} MB at start, ${rss1000} MB after 1,000 requests (target ≤ 70), peak ${hwm} MB`);
process.exit(0);
