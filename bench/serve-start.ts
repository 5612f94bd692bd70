// `npx tsx bench/serve-start.ts [--runs 5] [--mode dist|tsx] [--surfaces all|none|docs,t2] [--env KEY=VALUE]…`
// Measures `palabre serve` from spawn to the first 200 of /healthz (ready: every surface started)
// and the process's resident memory at that moment, then the SIGTERM → exit time.
// Prints one JSON line, then a table. Target: ready ≤ 1.5 s.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../core/version.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, mode: { type: 'string' }, surfaces: { type: 'string', default: 'all' }, env: { type: 'string', multiple: true, default: [] } } });
// Extra variables for the child, e.g. `--env OPENAI_BASE_URL=…` to start with a provider configured.
const extraEnv = Object.fromEntries(values.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const runs = Math.max(1, Number(values.runs));
const surfaces = values.surfaces;
const built = existsSync(join(PROJECT_ROOT, 'dist/cli/main.js'));
const mode = values.mode ?? (built ? 'dist' : 'tsx');
const command = mode === 'dist' ? [join(PROJECT_ROOT, 'bin/palabre.js'), 'serve'] : ['--import', 'tsx', join(PROJECT_ROOT, 'cli/main.ts'), 'serve'];

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

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

interface Run { readyMs: number; rssMb: number; stopMs: number; exitCode: number | null }

async function once(): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), 'palabre-bench-'));
  const port = await freePort();
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), MQTT_EMBEDDED_PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: 'warn', SURFACES: surfaces, ...extraEnv };
  const started = performance.now();
  const child = spawn(process.execPath, command, { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
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
  const stopAt = performance.now();
  child.kill('SIGTERM');
  const exitCode = await exited;
  const stopMs = performance.now() - stopAt;
  rmSync(dataDir, { recursive: true, force: true });
  return { readyMs: Math.round(readyMs), rssMb: rss, stopMs: Math.round(stopMs), exitCode };
}

const results: Run[] = [];
await once(); // warm the file cache (first run after a build reads everything from disk)
for (let i = 0; i < runs; i++) results.push(await once());

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => {
  const s = sorted(xs);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : Math.round(((s[m - 1]! + s[m]!) / 2) * 10) / 10;
};
const ready = results.map((r) => r.readyMs);
const summary = {
  bench: 'serve-start',
  mode,
  surfaces: values.surfaces,
  runs,
  readyMsMedian: median(ready),
  readyMsMin: Math.min(...ready),
  readyMsMax: Math.max(...ready),
  rssMbMedian: median(results.map((r) => r.rssMb)),
  stopMsMedian: median(results.map((r) => r.stopMs)),
  exitCodes: [...new Set(results.map((r) => r.exitCode))],
  targetReadyMs: 1500,
  meetsTarget: median(ready) <= 1500,
  node: process.version,
};
console.log(JSON.stringify(summary));
console.log('');
console.log('run | ready (ms) | RSS (MB) | SIGTERM→exit (ms) | exit');
console.log('--- | ---------- | -------- | ----------------- | ----');
results.forEach((r, i) => console.log(`${String(i + 1).padStart(3)} | ${String(r.readyMs).padStart(10)} | ${String(r.rssMb).padStart(8)} | ${String(r.stopMs).padStart(17)} | ${r.exitCode}`));
console.log(`median ready ${summary.readyMsMedian} ms (target ≤ 1500, ${summary.meetsTarget ? 'met' : 'NOT met'}), RSS ${summary.rssMbMedian} MB, mode ${mode}, surfaces ${values.surfaces}`);
