import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERRUPT_BUDGET, tuneJitForSkull } from '../../../core/tuning/jitBudgetForSkull.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/**
 * Calls a small function until V8 has optimised it and prints how many calls that took, in a
 * fresh node (optimisation made synchronous so that the count does not depend on a background
 * thread), with or without `tuneJitForSkull()` first.
 */
function callsUntilOptimised(tuned: boolean): number {
  const script = `
    const { tuneJitForSkull } = await import(${JSON.stringify(join(ROOT, 'core', 'tuning', 'jitBudgetForSkull.ts'))});
    if (${tuned}) tuneJitForSkull();
    function turn(o) { return o.a * 2 + o.b.length - (o.c ? 1 : 0); }
    const OPTIMIZED = 1 << 4; // V8's OptimizationStatus::kOptimized
    let calls = 0;
    while (calls < 1e6 && (%GetOptimizationStatus(turn) & OPTIMIZED) === 0) { turn({ a: calls, b: 'xy', c: calls % 2 === 0 }); calls++; }
    console.log(calls);
  `;
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--no-concurrent-recompilation', '--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return Number(r.stdout.trim());
}

describe('tuneJitForSkull (palabre skull’s V8 interrupt budget)', () => {
  it('sets the budget when node was started without one', () => {
    expect(INTERRUPT_BUDGET).toBe(16 * 1024);
    expect(tuneJitForSkull([])).toBe(true);
    expect(tuneJitForSkull(['--max-old-space-size=96', '--enable-source-maps'])).toBe(true);
  });

  it('leaves a budget given on node’s command line alone, in either spelling', () => {
    expect(tuneJitForSkull(['--interrupt-budget=65536'])).toBe(false);
    expect(tuneJitForSkull(['--interrupt_budget=1000'])).toBe(false);
    expect(tuneJitForSkull(['--interrupt-budget-for-feedback-allocation=940'])).toBe(true); // another flag
  });

  it('takes effect when set at run time: a function is optimised after far fewer calls', () => {
    const byDefault = callsUntilOptimised(false);
    const tuned = callsUntilOptimised(true);
    expect(byDefault).toBeLessThan(1e6); // V8 did optimise it
    expect(tuned).toBeGreaterThan(0);
    // A quarter of the budget: about four times fewer calls (kept loose: V8 adds a few checks).
    expect(tuned).toBeLessThan(byDefault / 2);
  });
});
