/**
 * `npm run test:model`: runs every model-based test (`*.model.test.ts`) and prints, per machine,
 * the paths generated, states and transitions covered / total and the uncovered ones by name.
 * Exits non-zero when a test fails or a machine is below 100 % of its transitions, unless each
 * missing transition is listed with a reason in test/model/unreachable.json.
 *
 *   npx tsx test/model/report.ts --run   # clear coverage/model, run the tests, report
 *   npx tsx test/model/report.ts         # report the files already in coverage/model
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { StateMachine } from 'xstate';
import { z } from 'zod';
import { COVERAGE_DIR, RUN_ID_ENV, pct, type CoverageFile } from '../harness/coverage.js';

const UNREACHABLE_FILE = join(process.cwd(), 'test', 'model', 'unreachable.json');

const unreachableSchema = z.record(z.string(), z.union([z.string(), z.record(z.string(), z.string().min(3, 'give a reason'))]));

export interface MachineVerdict {
  file: CoverageFile;
  /** Uncovered transitions not excused by unreachable.json. */
  missing: string[];
  excused: Array<{ transition: string; reason: string }>;
  /** Entries of unreachable.json that the tests did cover (to delete). */
  stale: string[];
  ok: boolean;
}

export function loadUnreachable(file = UNREACHABLE_FILE): Record<string, Record<string, string>> {
  if (!existsSync(file)) return {};
  const parsed = unreachableSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const out: Record<string, Record<string, string>> = {};
  for (const [machine, entries] of Object.entries(parsed)) if (typeof entries === 'object') out[machine] = entries;
  return out;
}

export function readCoverage(dir = COVERAGE_DIR): CoverageFile[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as CoverageFile);
}

export function judge(files: CoverageFile[], unreachable: Record<string, Record<string, string>>): MachineVerdict[] {
  return files.map((file) => {
    const excusedMap = unreachable[file.machine] ?? {};
    const missing = file.transitions.uncovered.filter((t) => !(t in excusedMap));
    const excused = file.transitions.uncovered.filter((t) => t in excusedMap).map((t) => ({ transition: t, reason: excusedMap[t]! }));
    const stale = Object.keys(excusedMap).filter((t) => !file.transitions.uncovered.includes(t));
    return { file, missing, excused, stale, ok: missing.length === 0 && file.paths.failed === 0 };
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
    ok ? 'ok' : 'FAIL',
  ]);
  const header = ['machine', 'paths', 'short/simple/trans', 'failed', 'states', 'transitions', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => pad(cell, widths[i]!)).join('  ').trimEnd();
  const out = [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  for (const v of verdicts) {
    for (const s of v.file.states.uncovered) out.push(`  ${v.file.machine}: uncovered state ${s}`);
    for (const t of v.missing) out.push(`  ${v.file.machine}: uncovered transition ${t}`);
    for (const e of v.excused) out.push(`  ${v.file.machine}: unreachable (listed) ${e.transition} — ${e.reason}`);
    for (const t of v.stale) out.push(`  ${v.file.machine}: listed as unreachable but covered, remove it from unreachable.json: ${t}`);
    if (v.file.paths.failed > 0) out.push(`  ${v.file.machine}: ${v.file.paths.failed} replayed path(s) failed (see the test output)`);
  }
  return out.join('\n');
}

/** Machines exported from machines/*.ts, by id (to name those without a model test). */
export async function listMachines(dir = join(process.cwd(), 'machines')): Promise<Array<{ id: string; file: string }>> {
  const out: Array<{ id: string; file: string }> = [];
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts')).sort()) {
    try {
      const mod = (await import(pathToFileURL(join(dir, f)).href)) as Record<string, unknown>;
      for (const value of Object.values(mod)) {
        if (value instanceof StateMachine && !out.some((m) => m.id === value.id)) out.push({ id: value.id, file: `machines/${f}` });
      }
    } catch (error) {
      console.error(`(could not load machines/${f}: ${error instanceof Error ? error.message : String(error)})`);
    }
  }
  return out;
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
  const files = readCoverage();
  if (files.length === 0) {
    console.error(`no coverage in ${COVERAGE_DIR}: run \`npm run test:model\``);
    return 1;
  }
  const verdicts = judge(files, loadUnreachable());
  console.log('\nModel-based coverage (paths: shortest/simple/transition; replayed on the wired actors)\n');
  console.log(formatReport(verdicts));
  const untested = (await listMachines()).filter((m) => !files.some((f) => f.machine === m.id));
  for (const m of untested) console.log(`  ${m.id}: no model test (${m.file})`);
  const bad = verdicts.filter((v) => !v.ok).map((v) => v.file.machine);
  if (testsFailed) console.error('\nmodel tests failed');
  if (bad.length) console.error(`\nbelow 100 % of transitions (or failing replays): ${bad.join(', ')}`);
  return testsFailed || bad.length ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2));
