/**
 * The off switches of the runtime tuning (docs/runtime-tuning.md). Each piece is on by default and
 * reads its switch where it acts, so that `TUNING_OFF` (core/config/sections/tuningSection.ts),
 * applied once when `palabre serve` or `palabre skull` starts, turns it off for the whole process.
 * A piece turned off leaves the plain path: same messages, same order, only without the batching
 * or the V8 setting.
 */
export const TUNINGS = [
  /** `palabre serve`: V8 flags --no-allocation-site-pretenuring and --heap-growing-percent=100 (gcFlagsForServe.ts). */
  'gc-flags',
  /** `palabre skull`: V8 flag --interrupt-budget=16384 (jitBudgetForSkull.ts). */
  'jit-budget',
  /** `palabre serve`: one memory-reducing collection once ready (gcAfterWarmUp.ts). */
  'gc-after-warmup',
  /** T2: Gemini's chart events delivered after the audio of the same loop iteration (chartEventsAfterAudio.ts). */
  'chart-events-after-audio',
  /** T2: a page socket's frames of one tick in one writev (batchWritesPerTick.ts). */
  'ws-writes-per-tick',
  /** Skull: an MQTT connection's writes of one turn in one write (holdWritesPerTurn.ts). */
  'mqtt-writes-per-turn',
] as const;

export type Tuning = (typeof TUNINGS)[number];

const on: Record<Tuning, boolean> = Object.fromEntries(TUNINGS.map((t) => [t, true])) as Record<Tuning, boolean>;

/** Whether a piece of tuning is on (all are, unless {@link setTuningOff} turned it off). */
export function tuningOn(tuning: Tuning): boolean {
  return on[tuning];
}

/** Turns off exactly the pieces listed (the others on again). */
export function setTuningOff(off: Iterable<Tuning>): void {
  for (const t of TUNINGS) on[t] = true;
  for (const t of off) on[t] = false;
}

/** The pieces a `TUNING_OFF` value names: `none`, `all`, or a comma list of {@link TUNINGS}. */
export function parseTuningOff(text: string): { off: Tuning[]; unknown: string[] } {
  const names = text.split(',').map((s) => s.trim()).filter((s) => s !== '' && s !== 'none');
  if (names.includes('all')) return { off: [...TUNINGS], unknown: [] };
  const known = new Set<string>(TUNINGS);
  return { off: names.filter((n): n is Tuning => known.has(n)), unknown: names.filter((n) => !known.has(n)) };
}

/** Applies a validated `TUNING_OFF` value; returns the pieces turned off. */
export function applyTuningOff(text: string): Tuning[] {
  const { off } = parseTuningOff(text);
  setTuningOff(off);
  return off;
}
