import type { BreakerInput } from '../../machines/breaker.js';

/** What a breaker's callers told it, and when (on the simulated clock). */
export interface BreakerCall {
  at: number;
  type: 'breaker.failure' | 'breaker.success' | string;
}

/**
 * The breaker as docs/statecharts.md and docs/configuration.md describe it, from its callers'
 * reports and the time alone (never from machines/breaker.ts): `failureThreshold` failures, each
 * forgotten `windowMs` after it happened, with no success in between, open it; a success forgets
 * them all; while open the callers' reports change nothing; `cooldownMs` after opening it is
 * closed again, with no failure remembered. Shared by the breaker and llmCall oracles.
 */
export function expectedBreaker(input: BreakerInput, calls: readonly BreakerCall[], now: number): { open: boolean; failures: number } {
  let open = false;
  let openedAt = 0;
  let failed: number[] = [];
  const advance = (t: number) => {
    if (open && t >= openedAt + input.cooldownMs) open = false;
    if (!open) failed = failed.filter((at) => at + input.windowMs > t);
  };
  for (const call of calls) {
    advance(call.at);
    if (open) continue;
    if (call.type === 'breaker.success') failed = [];
    else if (call.type === 'breaker.failure') {
      if (failed.length + 1 >= input.failureThreshold) {
        open = true;
        openedAt = call.at;
        failed = [];
      } else failed.push(call.at);
    }
  }
  advance(now);
  return { open, failures: failed.length };
}
