import { setFlagsFromString } from 'node:v8';
import { tuningOn } from './switches.js';

/**
 * The two V8 garbage-collection settings of `palabre serve`, each applied unless node's own
 * command line sets that flag (then the operator's value wins).
 *
 * 1. **No allocation-site pretenuring**. V8 watches each object
 *    and array literal: when one scavenge finds ≥ 100 of a literal's objects still alive and
 *    ≥ 85 % of those it created, every later object of that literal is allocated straight in the
 *    old generation — for good. `ws`'s receiver makes one array per message
 *    (`this._fragments = []`) and keeps only the last one per socket. While 200 T2 sessions
 *    start, scavenges come every few milliseconds, each socket has had one message between two of
 *    them, and all 200 arrays are the sockets' current ones: 100 % alive, so V8 tenured that
 *    literal (`--trace-pretenuring-statistics`: `(117, 117, 1.000000) undecided => tenure`). From
 *    then on every page frame's array lived in the old generation, dead 20 ms later but kept until
 *    the next mark-compact, and through it every scavenge kept the frame's buffer, its
 *    ArrayBuffer and its slices alive: ≈ 310 bytes promoted per frame, 5.5 % of all allocation
 *    (the relay in bench/ 0.1 %), the marking work of V8's helper threads. The SDK's message
 *    events from Gemini went the same way. Without pretenuring: 0.9–1.0 %. Nothing of palabre's
 *    is long-lived *and* allocated in bulk after start, which is what pretenuring is for.
 * 2. **Old-generation growing factor 2**: the next major collection starts once the
 *    old generation has grown to (1 + HEAP_GROWING_PERCENT / 100) × what the last one left. V8's
 *    own factor follows the promotion rate against its marking speed; at the promotion above it
 *    came out at 1.1–1.2 and restarted incremental marking right after each mark-compact. The
 *    price is a larger old generation between collections (≈ 1 MB of idle RSS).
 *
 * Set at run time, before any surface starts (both flags are read when V8 uses them, at each
 * allocation-site decision and each collection): V8 refuses the growing factor in NODE_OPTIONS,
 * and `palabre serve` is started in more ways than one script. `TUNING_OFF=gc-flags` sets neither
 * (V8's defaults then hold), as does giving both flags' default values on node's command line.
 */
export const HEAP_GROWING_PERCENT = 100;

/** One setting: the flag's name (either spelling matches it on node's command line) and its value here. */
const SERVE_GC_FLAGS: ReadonlyArray<{ name: RegExp; flag: string }> = [
  { name: /^--(no-?)?allocation[-_]site[-_]pretenuring\b/, flag: '--no-allocation-site-pretenuring' },
  { name: /^--heap[-_]growing[-_]percent\b/, flag: `--heap-growing-percent=${HEAP_GROWING_PERCENT}` },
];

/** Applies the settings node's command line leaves open; returns the flags it set. */
export function tuneGcForServe(execArgv: readonly string[] = process.execArgv): string[] {
  const applied: string[] = [];
  if (!tuningOn('gc-flags')) return applied;
  for (const { name, flag } of SERVE_GC_FLAGS) {
    if (execArgv.some((a) => name.test(a))) continue;
    setFlagsFromString(flag);
    applied.push(flag);
  }
  return applied;
}
