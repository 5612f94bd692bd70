/**
 * `npm run test:model`: runs every model-based test (`*.model.test.ts`) and prints, per machine,
 * the paths generated, states and transitions covered / total and the uncovered ones by name.
 * Exits non-zero when a test fails, a machine's replays ran no oracle check, or a machine is below
 * 100 % of its transitions, unless each missing transition is listed with a reason in
 * test/model/unreachable.json.
 *
 *   npx tsx test/model/modelReport.ts --run   # clear coverage/model, run the tests, report
 *   npx tsx test/model/modelReport.ts         # report the files already in coverage/model
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { COVERAGE_DIR, RUN_ID_ENV, pct, type CoverageFile } from '../harness/modelCoverage.js';

const UNREACHABLE_FILE = join(process.cwd(), 'test', 'model', 'unreachable.json');

const unreachableSchema = z.record(z.string(), z.union([z.string(), z.record(z.string(), z.string().min(3, 'give a reason'))]));

export interface MachineVerdict {
  file: CoverageFile;
  /** Uncovered transitions not excused by unreachable.json. */
  missing: string[];
  excused: Array<{ transition: string; reason: string }>;
  /** Entries of unreachable.json that the tests did cover (to delete). */
  stale: string[];
  /** No oracle check ran: the replays only compared the chart with itself. */
  noOracle: boolean;
  ok: boolean;
}

export function loadUnreachable(file = UNREACHABLE_FILE): Record<string, Record<string, string>> {
  if (!existsSync(file)) return {};
  const parsed = unreachableSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const out: Record<string, Record<string, string>> = {};
  for (const [machine, entries] of Object.entries(parsed)) if (typeof entries === 'object') out[machine] = entries;
  return out;
}

export function readCoverage(dir = COVERAGE_DIR): Array<CoverageFile & { mtimeMs: number }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ ...(JSON.parse(readFileSync(join(dir, f), 'utf8')) as CoverageFile), mtimeMs: statSync(join(dir, f)).mtimeMs }));
}

export function judge(files: CoverageFile[], unreachable: Record<string, Record<string, string>>): MachineVerdict[] {
  return files.map((file) => {
    const excusedMap = unreachable[file.machine] ?? {};
    const missing = file.transitions.uncovered.filter((t) => !(t in excusedMap));
    const excused = file.transitions.uncovered.filter((t) => t in excusedMap).map((t) => ({ transition: t, reason: excusedMap[t]! }));
    const stale = Object.keys(excusedMap).filter((t) => !file.transitions.uncovered.includes(t));
    const noOracle = (file.oracleChecks ?? 0) === 0;
    return { file, missing, excused, stale, noOracle, ok: missing.length === 0 && file.paths.failed === 0 && !noOracle };
  });
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

export function formatReport(verdicts: MachineVerdict[]): string {
  const rows = verdicts.map(({ file: c, ok }) => [
    c.machine,
    String(c.paths.shortest + c.paths.simple + c.paths.transition),
    `${c.paths.shortest}/${c.paths.simple}/${c.paths.transition}`,
    String(c.paths.failed),
    `${c.states.covered}/${c.states.total} (${pct(c.states.covered, c.states.total)} %)`,
    `${c.transitions.covered}/${c.transitions.total} (${pct(c.transitions.covered, c.transitions.total)} %)`,
    String(c.oracleChecks ?? 0),
    ok ? 'ok' : 'FAIL',
  ]);
  const header = ['machine', 'paths', 'short/simple/trans', 'failed', 'states', 'transitions', 'oracle checks', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => pad(cell, widths[i]!)).join('  ').trimEnd();
  const out = [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  for (const v of verdicts) {
    for (const s of v.file.states.uncovered) out.push(`  ${v.file.machine}: uncovered state ${s}`);
    for (const t of v.missing) out.push(`  ${v.file.machine}: uncovered transition ${t}`);
    for (const e of v.excused) out.push(`  ${v.file.machine}: unreachable (listed) ${e.transition} — ${e.reason}`);
    for (const t of v.stale) out.push(`  ${v.file.machine}: listed as unreachable but covered, remove it from unreachable.json: ${t}`);
    if (v.noOracle) out.push(`  ${v.file.machine}: no oracle check ran (the replays only compare the chart with itself): give its model test an oracle`);
    if (v.file.paths.failed > 0) out.push(`  ${v.file.machine}: ${v.file.paths.failed} replayed path(s) failed (see the test output)`);
  }
  return out.join('\n');
}

/** Every production machine by name: the registry `palabre machines` reads (actors/serve.ts). */
export async function listMachines(): Promise<string[]> {
  const { allMachines } = await import('../../actors/serve.js');
  return Object.keys(await allMachines());
}

/** Machine names excused as a whole in unreachable.json (`"name": "reason"`). */
export function excusedMachines(file = UNREACHABLE_FILE): Record<string, string> {
  if (!existsSync(file)) return {};
  const parsed = unreachableSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string' && !e[0].startsWith('$')));
}

/** Files of the latest run only: a file left by an earlier run must not count. */
export function latestRun(files: Array<CoverageFile & { mtimeMs: number }>): { current: CoverageFile[]; stale: string[] } {
  const newest = [...files].sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
  if (!newest) return { current: [], stale: [] };
  return {
    current: files.filter((f) => f.runId === newest.runId),
    stale: files.filter((f) => f.runId !== newest.runId).map((f) => f.machine),
  };
}

async function main(argv: string[]): Promise<number> {
  let testsFailed = false;
  if (argv.includes('--run')) {
    rmSync(COVERAGE_DIR, { recursive: true, force: true });
    const vitest = join(process.cwd(), 'node_modules', '.bin', 'vitest');
    const run = spawnSync(vitest, ['run', '.model.test.ts', ...argv.filter((a) => a !== '--run')], {
      stdio: 'inherit',
      env: { ...process.env, [RUN_ID_ENV]: `run-${Date.now()}-${process.pid}` },
    });
    testsFailed = run.status !== 0;
  }
  const { current: files, stale } = latestRun(readCoverage());
  if (files.length === 0) {
    console.error(`no coverage in ${COVERAGE_DIR}: run \`npm run test:model\``);
    return 1;
  }
  const verdicts = judge(files, loadUnreachable());
  console.log('\nModel-based coverage (paths: shortest/simple/transition; replayed on the wired actors; oracle checks: expectations on what the world observed)\n');
  console.log(formatReport(verdicts));
  for (const m of stale) console.log(`  ${m}: coverage file from an earlier run, ignored`);
  const excused = excusedMachines();
  const untested = (await listMachines()).filter((m) => !files.some((f) => f.machine === m));
  for (const m of untested) console.log(`  ${m}: no model test${excused[m] ? ` (listed: ${excused[m]})` : ''}`);
  const bad = [...verdicts.filter((v) => !v.ok).map((v) => v.file.machine), ...untested.filter((m) => !excused[m])];
  if (testsFailed) console.error('\nmodel tests failed');
  if (bad.length) console.error(`\nbelow 100 % of transitions, failing replays, no oracle check or no model test: ${bad.join(', ')}`);
  return testsFailed || bad.length ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2));
