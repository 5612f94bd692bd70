import { setFlagsFromString } from 'node:v8';
import { tuningOn } from './switches.js';

/**
 * V8's interrupt budget for `palabre skull`: how much bytecode a function runs between two of the
 * checks that decide whether to optimise it (V8's default, 66 KB in Node 20, times a few checks).
 *
 * Why: a Skull turn runs each of its functions once — the MQTT
 * decoding, zod, the chart's step, the prompt, the post-processing — so with V8's default a
 * function needs about a thousand turns before the optimising compiler takes it: much of the
 * reply path was still unoptimised during a 1,000-request benchmark (a device talking every few
 * seconds would need an hour or more). A quarter of the budget gets the same functions optimised about four times
 * sooner: in the real process, request → reply p50 0.37 → 0.28 ms (`npx tsx bench/skull-ratio.ts
 * 5 200` against the same with `--node-flags=--interrupt-budget=67584`, V8's default; four
 * alternated runs each). The price is a little more optimised code and more frequent tier-up
 * checks early on. With the deploy flags (`--lite-mode`: no optimising compiler) it changes
 * nothing; RSS after 1,000 requests there stayed at ≈ 62 MB.
 *
 * Set at run time, like gcFlagsForServe.ts: the budget is read each time a function's counter is
 * reset, so functions compiled before this line take it at their next check. An
 * `--interrupt-budget` given on node's command line wins; `TUNING_OFF=jit-budget` leaves V8's default.
 */
export const INTERRUPT_BUDGET = 16 * 1024;

export function tuneJitForSkull(execArgv: readonly string[] = process.execArgv): boolean {
  if (!tuningOn('jit-budget')) return false;
  if (execArgv.some((a) => /^--interrupt[-_]budget(?:=|$)/.test(a))) return false;
  setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
  return true;
}
