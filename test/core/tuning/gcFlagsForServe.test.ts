import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, tuneGcForServe } from '../../../core/tuning/gcFlagsForServe.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/**
 * What ws's receiver does with its `this._fragments = []` (core/tuning/gcFlagsForServe.ts), in a fresh node:
 * 200 sockets each keep the array of their last message. First a few scavenges that each find all
 * 200 current arrays alive (as while sessions start), then 200,000 messages whose arrays are dead
 * one message later. Returns how much the old generation grew during those messages: with the
 * literal tenured, every one of them was allocated there.
 */
function oldGenerationGrowth(tuned: boolean): number {
  const script = `
    const { tuneGcForServe } = await import(${JSON.stringify(join(ROOT, 'core', 'tuning', 'gcFlagsForServe.ts'))});
    const { getHeapSpaceStatistics } = await import('node:v8');
    if (${tuned}) tuneGcForServe([]);
    const oldUsed = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
    function fragments() { return []; }
    const current = new Array(200);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 200; i++) current[i] = fragments();
      gc({ type: 'minor' });
    }
    gc();
    const before = oldUsed();
    for (let n = 0; n < 200000; n++) current[n % 200] = fragments();
    console.log(oldUsed() - before);
  `;
  // V8 tenures a literal only at a scavenge of a young generation at its maximum size (before,
  // "maybe tenure"): a 1 MB one is at its maximum from the start, as palabre's 16 MB one is under load.
  const flags = ['--expose-gc', '--min-semi-space-size=1', '--max-semi-space-size=1'];
  const r = spawnSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return Number(r.stdout.trim());
}

describe('tuneGcForServe (palabre serve’s V8 garbage-collection settings)', () => {
  it('sets both flags when node was started without them', () => {
    expect(HEAP_GROWING_PERCENT).toBe(100);
    expect(tuneGcForServe([])).toEqual(['--no-allocation-site-pretenuring', '--heap-growing-percent=100']);
    expect(tuneGcForServe(['--max-old-space-size=512', '--enable-source-maps'])).toHaveLength(2);
  });

  it('leaves each flag given on node’s command line alone, in either spelling', () => {
    expect(tuneGcForServe(['--heap-growing-percent=50'])).toEqual(['--no-allocation-site-pretenuring']);
    expect(tuneGcForServe(['--heap_growing_percent=30'])).toEqual(['--no-allocation-site-pretenuring']);
    expect(tuneGcForServe(['--allocation-site-pretenuring'])).toEqual(['--heap-growing-percent=100']);
    expect(tuneGcForServe(['--no-allocation_site_pretenuring', '--heap-growing-percent=50'])).toEqual([]);
  });

  it('keeps a per-message literal out of the old generation once V8 saw all its objects alive', () => {
    const byDefault = oldGenerationGrowth(false);
    const tuned = oldGenerationGrowth(true);
    // V8's default: the literal tenured, 200,000 arrays of ≥ 16 bytes each in the old generation.
    expect(byDefault).toBeGreaterThan(200_000 * 16);
    // Tuned: they die young; at most the last scavenges' few hundred survivors are promoted.
    expect(tuned).toBeLessThan(byDefault / 10);
  });
});
