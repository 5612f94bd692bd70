import { setFlagsFromString } from 'node:v8';

/**
 * V8's old-generation growing factor for `palabre serve`: the next major collection starts once
 * the old generation has grown to (1 + HEAP_GROWING_PERCENT / 100) × what the last one left.
 *
 * Why (bench/README.md, T2 wave s22): under load, palabre promotes a steady 3–4 MB/s out of the
 * young generation (chart snapshots and socket messages that live through two scavenges). V8's own
 * factor is computed from that rate against its marking speed and comes out at 1.1–1.2, which with
 * a 47 MB live heap put the old generation's limit barely above the young generation's capacity:
 * incremental marking restarted right after every mark-compact: one every 0.5–0.7 s at 200 T2
 * sessions, 10–13 µs of CPU per audio chunk on V8's helper threads. With a factor of 2, one every
 * 3–4 s and ≈ 4–5 µs less per chunk; the price is a larger old generation between collections
 * (it peaks at ≈ 60–68 MB instead of ≈ 50–55 at 200 sessions; RSS at load did not move
 * measurably), ≈ 1 MB of idle RSS (bench/serve-start.ts).
 *
 * Set at run time (the flag is read at each collection): V8 refuses it in NODE_OPTIONS, and
 * `palabre serve` is started in more ways than one script. A `--heap-growing-percent` given on
 * node's command line wins.
 */
export const HEAP_GROWING_PERCENT = 100;

export function tuneGcForServe(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
