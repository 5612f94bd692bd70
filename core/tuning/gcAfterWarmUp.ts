import * as v8 from 'node:v8';
import { tuningOn } from './switches.js';

/**
 * Once the warm-up is over (every surface started, the docs index built): one memory-reducing
 * garbage collection. Why: the start allocates a lot (modules, the index, migrations), V8 grows
 * its young generation to its maximum (2 × 16 MB) and keeps it, and the old generation keeps the
 * pages the start-up garbage lived in. V8 gives these back only in a memory-reducing collection,
 * which an idle `palabre serve` never triggered: it stayed at 147 MB 40 s after ready (compiled,
 * all surfaces). With this and the modules now loaded on first use: 103 MB 5 s after ready
 * (`npx tsx bench/serve-start.ts --runs 3`).
 *
 * `v8.queryObjects` is the one Node API (≥ 20.13) documented to run a full collection first; V8
 * runs it as "collect all available garbage", the memory-reducing kind that shrinks the young
 * generation and compacts. Its search is for a class nothing instantiates, so it finds nothing
 * and holds nothing. It costs ≈ 50–150 ms once, after `/readyz` turned ready. The API is marked
 * experimental: its one-time ExperimentalWarning is not printed (that line would only alarm).
 * `TUNING_OFF=gc-after-warmup` skips it: V8 then gives the memory back whenever it decides to.
 * Returns whether the collection ran.
 */
class NeverInstantiated {}

export function collectAfterWarmUp(): boolean {
  if (!tuningOn('gc-after-warmup')) return false;
  const query = (v8 as { queryObjects?: (ctor: new () => unknown, options: { format: 'count' }) => number }).queryObjects;
  if (typeof query !== 'function') return false;
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (text.includes('queryObjects')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    query(NeverInstantiated, { format: 'count' });
  } finally {
    process.emitWarning = emitWarning;
  }
  return true;
}
