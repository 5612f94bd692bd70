// `npx tsx bench/serve-start.ts [--runs 5] [--mode dist|tsx] [--surfaces all|none|docs,t2] [--env KEY=VALUE]… [--settle-ms 5000]`
// Measures `palabre serve` from spawn to the first 200 of /healthz (liveness: HTTP answers, the
// surfaces may still warm up) and of /readyz (every surface started), the process's resident
// memory at /healthz, its idle RSS `--settle-ms` later, its peak RSS over the whole start
// (/proc/<pid>/status VmHWM, warm-up included), the RSS of its child processes (Grammalecte's
// sidecar) apart, then the SIGTERM → exit time. Interleaved with it (so both see the same load), the same
// measurements of bench/support/minimal-express.ts started the same way: the ratio of the medians.
// Prints one JSON line, then a table. Targets: ready ≤ 5× minimal express, idle RSS ≤ 120 MB,
// peak ≤ 300 MB.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../core/version.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, mode: { type: 'string' }, surfaces: { type: 'string', default: 'all' }, env: { type: 'string', multiple: true, default: [] }, 'settle-ms': { type: 'string', default: '5000' } } });
const settleMs = Number(values['settle-ms']);
// Extra variables for the child, e.g. `--env OPENAI_BASE_URL=…` to start with a provider configured.
const extraEnv = Object.fromEntries(values.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const runs = Math.max(1, Number(values.runs));
const surfaces = values.surfaces;
const built = existsSync(join(PROJECT_ROOT, 'dist/cli/main.js'));
const mode = values.mode ?? (built ? 'dist' : 'tsx');
const command = mode === 'dist' ? [join(PROJECT_ROOT, 'bin/palabre.js'), 'serve'] : ['--import', 'tsx', join(PROJECT_ROOT, 'cli/main.ts'), 'serve'];
const baselineCommand = mode === 'dist' ? [join(PROJECT_ROOT, 'bench/support/minimal-express.ts')] : ['--import', 'tsx', join(PROJECT_ROOT, 'bench/support/minimal-express.ts')];
if (mode === 'dist') baselineCommand.unshift('--import', 'tsx'); // no compiled form of the bench app: its loader cost is counted

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

function rssMb(pid: number, key = 'VmRSS'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return Math.round((kb / 1024) * 10) / 10;
  } catch {
    return 0; // gone
  }
}

/** Descendants of pid (Grammalecte's Python sidecar…), from /proc/<pid>/task/<tid>/children. */
function children(pid: number): number[] {
  try {
    const out: number[] = [];
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)) out.push(c, ...children(c));
    }
    return out;
  } catch {
    return [];
  }
}

interface Run { readyMs: number; warmMs: number; rssMb: number; idleRssMb: number; peakRssMb: number; childrenPeakRssMb: number; stopMs: number; exitCode: number | null }

async function once(baseline = false): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), 'palabre-bench-'));
  const port = await freePort();
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), MQTT_EMBEDDED_PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: 'warn', SURFACES: surfaces, ...extraEnv };
  const started = performance.now();
  const child = spawn(process.execPath, baseline ? baselineCommand : command, { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let readyMs = -1;
  while (readyMs < 0) {
    if (child.exitCode !== null) throw new Error(`serve exited (${child.exitCode}): ${stderr}`);
    if (performance.now() - started > 120_000) {
      child.kill('SIGKILL');
      throw new Error('serve not ready after 120 s');
    }
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.status === 200) readyMs = performance.now() - started;
      await res.arrayBuffer();
    } catch {
      // not listening yet
    }
    if (readyMs < 0) await new Promise((r) => setTimeout(r, 5));
  }
  const rss = rssMb(child.pid!);
  // Ready: /readyz answers 200 once every surface has started (the warm-up is over); the
  // minimal express app has no warm-up, its ready time is its /healthz time.
  let warmMs = baseline ? readyMs : -1;
  while (warmMs < 0) {
    if (child.exitCode !== null) throw new Error(`serve exited (${child.exitCode}): ${stderr}`);
    if (performance.now() - started > 120_000) {
      child.kill('SIGKILL');
      throw new Error('serve not ready (/readyz) after 120 s');
    }
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (res?.status === 200) warmMs = performance.now() - started;
    await res?.arrayBuffer();
    if (warmMs < 0) await new Promise((r) => setTimeout(r, 5));
  }
  // Idle after warm-up; the children's RSS sampled meanwhile (their peak is not in our VmHWM).
  let childrenPeak = 0;
  const settleEnd = performance.now() + settleMs;
  while (performance.now() < settleEnd) {
    childrenPeak = Math.max(childrenPeak, children(child.pid!).reduce((n, c) => n + rssMb(c), 0));
    await new Promise((r) => setTimeout(r, 100));
  }
  const idleRss = rssMb(child.pid!);
  const peakRss = rssMb(child.pid!, 'VmHWM');
  const stopAt = performance.now();
  child.kill('SIGTERM');
  const exitCode = await exited;
  const stopMs = performance.now() - stopAt;
  rmSync(dataDir, { recursive: true, force: true });
  return { readyMs: Math.round(readyMs), warmMs: Math.round(warmMs), rssMb: rss, idleRssMb: idleRss, peakRssMb: peakRss, childrenPeakRssMb: childrenPeak, stopMs: Math.round(stopMs), exitCode };
}

const results: Run[] = [];
const baselines: Run[] = [];
const loads: number[] = [];
await once(); // warm the file cache (first run after a build reads everything from disk)
await once(true);
for (let i = 0; i < runs; i++) {
  loads.push(Math.round(loadavg()[0]! * 100) / 100);
  baselines.push(await once(true));
  results.push(await once());
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => {
  const s = sorted(xs);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : Math.round(((s[m - 1]! + s[m]!) / 2) * 10) / 10;
};
const ready = results.map((r) => r.readyMs);
const baselineReady = median(baselines.map((r) => r.readyMs));
const summary = {
  bench: 'serve-start',
  mode,
  surfaces: values.surfaces,
  runs,
  readyMsMedian: median(ready),
  readyMsMin: Math.min(...ready),
  readyMsMax: Math.max(...ready),
  rssMbMedian: median(results.map((r) => r.rssMb)),
  idleRssMbMedian: median(results.map((r) => r.idleRssMb)),
  peakRssMbMax: Math.max(...results.map((r) => r.peakRssMb)),
  childrenPeakRssMbMax: Math.max(...results.map((r) => r.childrenPeakRssMb)),
  baselineReadyMsMedian: baselineReady,
  baselineIdleRssMbMedian: median(baselines.map((r) => r.idleRssMb)),
  baselinePeakRssMbMax: Math.max(...baselines.map((r) => r.peakRssMb)),
  readyRatio: Math.round((median(ready) / baselineReady) * 100) / 100,
  warmMsMedian: median(results.map((r) => r.warmMs)),
  warmRatio: Math.round((median(results.map((r) => r.warmMs)) / baselineReady) * 100) / 100,
  loadavg1m: loads,
  stopMsMedian: median(results.map((r) => r.stopMs)),
  exitCodes: [...new Set(results.map((r) => r.exitCode))],
  targets: { readyRatio: 5, idleRssMb: 120, peakRssMb: 300 },
  meetsTarget: median(ready) / baselineReady <= 5 && median(results.map((r) => r.idleRssMb)) <= 120 && Math.max(...results.map((r) => r.peakRssMb)) <= 300,
  node: process.version,
};
console.log(JSON.stringify(summary));
console.log('');
console.log('run | express ready (ms) | /healthz (ms) | /readyz (ms) | RSS at ready / idle / peak (MB) | children peak (MB) | SIGTERM→exit (ms) | exit | load');
console.log('--- | ------------------ | ------------- | ------------ | ------------------------------- | ------------------ | ----------------- | ---- | ----');
results.forEach((r, i) => console.log(`${String(i + 1).padStart(3)} | ${String(baselines[i]!.readyMs).padStart(18)} | ${String(r.readyMs).padStart(13)} | ${String(r.warmMs).padStart(12)} | ${`${r.rssMb} / ${r.idleRssMb} / ${r.peakRssMb}`.padStart(31)} | ${String(r.childrenPeakRssMb).padStart(18)} | ${String(r.stopMs).padStart(17)} | ${r.exitCode} | ${loads[i]}`));
console.log(`median /healthz ${summary.readyMsMedian} ms vs minimal express ${baselineReady} ms → ${summary.readyRatio}× (target ≤ 5); /readyz (warm-up over) ${summary.warmMsMedian} ms → ${summary.warmRatio}×; idle RSS ${summary.idleRssMbMedian} MB (≤ 120; express ${summary.baselineIdleRssMbMedian}); peak ${summary.peakRssMbMax} MB (≤ 300); children ${summary.childrenPeakRssMbMax} MB; ${summary.meetsTarget ? 'met' : 'NOT met'}; mode ${mode}, surfaces ${values.surfaces}`);
