import { describe, expect, it } from 'vitest';
import { provideLlmCall } from '../../actors/llm/llmWiring.js';
import { createMetrics } from '../../core/metrics.js';
import type { LlmCallContext } from '../../machines/llmCall.js';
import { createActor, type EventObject, type SimulatedClock } from 'xstate';
import { breakerFailures, breakerMachine, isBreakerOpen, type BreakerInput, type BreakerRef } from '../../machines/breaker.js';
import type { LlmError } from '../../machines/llmPort.js';
import { runModel, type OracleContext } from '../harness/index.js';
import { expectedBreaker, type BreakerCall } from './breakerReference.js';
import { errors, request, result, unusedProvider } from './fixtures.js';

const base = { request, maxRetries: 2, attemptTimeoutMs: 1_000, backoffBaseMs: 100, retryAfterCapMs: 5_000, random: () => 0.5 };

/** A real breaker on the path's clock, and what it was told before the call (for the reference). */
interface BreakerSetup {
  input: BreakerInput;
  calls: BreakerCall[];
}
type Input = typeof base & { fallbackModel?: string; breaker?: BreakerRef; breakerSetup?: BreakerSetup };

function withBreaker(clock: SimulatedClock, onCleanup: (fn: () => unknown) => void, setup: BreakerSetup): Input {
  const breaker = createActor(breakerMachine, { clock, input: setup.input }).start();
  for (const call of setup.calls) breaker.send({ type: call.type as 'breaker.failure' | 'breaker.success' });
  onCleanup(() => breaker.stop());
  return { ...base, breaker, breakerSetup: setup, fallbackModel: 'fallback-model' };
}

/** The wait before retry `retry` (0-based): the provider's retry-after up to the cap, else base · 2^retry + 100–400 ms of jitter (250 ms for random() = 0.5). */
function expectedBackoff(given: Input, retry: number, error: { retryAfterMs?: number | undefined }): number {
  if (error.retryAfterMs !== undefined) return Math.min(Math.max(0, error.retryAfterMs), given.retryAfterCapMs);
  return given.backoffBaseMs * 2 ** retry + (100 + 300 * given.random());
}

/**
 * What the provider sees, what the breaker is told and what the caller gets, per
 * docs/statecharts.md ("llmCall") and docs/providers.md, from the path's events and the clock
 * alone: one attempt at a time, each cut after `attemptTimeoutMs`; a transient failure (timeout,
 * 429, 5xx) is retried after the backoff at most `maxRetries` times, anything else fails at once;
 * each failed attempt counts as a breaker failure and a success clears the count; each attempt
 * uses the fallback model iff the breaker is open when it starts; the output says how it ended,
 * after how many attempts, on which model, and why (kind and HTTP status).
 */
function expectLlmCall({ events, controls, snapshot, end, check, input, world }: OracleContext): void {
  const given = input as Input;
  const { now } = world as { now: () => number };
  const setup = given.breakerSetup;
  const breakerCalls: BreakerCall[] = [...(setup?.calls ?? [])];
  const modelAt = (at: number) => (setup && given.fallbackModel && expectedBreaker(setup.input, breakerCalls, at).open ? given.fallbackModel : request.model);
  let t = 0;
  let phase: 'attempting' | 'backingOff' | 'succeeded' | 'failed' = 'attempting';
  const models = [modelAt(0)];
  let retries = 0;
  let wait = 0;
  let lastError: { kind: string; status?: number | undefined; retryAfterMs?: number | undefined; transient: boolean } | undefined;
  for (const e of events as Array<EventObject & { error?: LlmError }>) {
    if (phase === 'attempting' && e.type === 'xstate.done.actor.generate') {
      phase = 'succeeded';
      breakerCalls.push({ at: t, type: 'breaker.success' });
    } else if (phase === 'attempting' && (e.type === 'xstate.error.actor.generate' || e.type.startsWith('xstate.after.attemptTimeout'))) {
      if (e.error) lastError = { kind: e.error.kind, status: e.error.status, retryAfterMs: e.error.retryAfterMs, transient: e.error.transient };
      else {
        t += given.attemptTimeoutMs;
        lastError = { kind: 'timeout', transient: true };
      }
      breakerCalls.push({ at: t, type: 'breaker.failure' });
      if (lastError.transient && retries < given.maxRetries) {
        wait = expectedBackoff(given, retries, lastError);
        retries++;
        phase = 'backingOff';
      } else phase = 'failed';
    } else if (phase === 'backingOff' && e.type.startsWith('xstate.after.backoff')) {
      t += wait;
      models.push(modelAt(t));
      phase = 'attempting';
    }
  }
  check(now() === t, `the call has lasted ${t} ms (attempt timeouts and backoffs), the clock says ${now()}`);
  const calls = controls.all('generate');
  check(calls.length === models.length, `${models.length} attempt(s) reach the provider, got ${calls.length}`);
  calls.forEach((c, i) => {
    const model = (c.input as { request: { model: string } }).request.model;
    check(model === models[i], `attempt ${i + 1} uses ${models[i]}, used ${model}`);
  });
  const running = calls.filter((c) => !c.settled && !c.signal.aborted).length;
  check(running === (phase === 'attempting' ? 1 : 0), `one attempt runs at a time, none while backing off or done (${running} in ${phase})`);
  if (setup && given.breaker) {
    const want = expectedBreaker(setup.input, breakerCalls, t);
    const b = given.breaker.getSnapshot();
    check(isBreakerOpen(b) === want.open, `told ${breakerCalls.map((c) => `${c.type}@${c.at}`).join(', ')}, the breaker is ${want.open ? 'open' : 'closed'}`);
    check(breakerFailures(b) === want.failures, `the breaker counts ${want.failures} failure(s), reports ${breakerFailures(b)}`);
  }
  if (!end || snapshot.status !== 'done') return;
  const out = snapshot.output as { ok: boolean; attempts: number; model: string; error?: { kind: string; status?: number } };
  const model = models[models.length - 1];
  check(out.ok === (phase === 'succeeded') && out.attempts === models.length && out.model === model, `the caller gets ${phase} after ${models.length} attempt(s) on ${model}, got ${JSON.stringify(out)}`);
  if (!out.ok) check(out.error?.kind === lastError?.kind && out.error?.status === lastError?.status, `the caller is told why: ${lastError?.kind} ${lastError?.status ?? ''}, got ${JSON.stringify(out.error)}`);
}

describe('llmCall model', () => {
  it('replays every generated path against the wired actor and covers every state and transition', async () => {
    const metrics = createMetrics({ defaults: false });
    const { failures, paths, coverage } = await runModel({
      name: 'llmCall',
      machine: provideLlmCall(unusedProvider, { metrics }),
      variants: [
        { name: 'no breaker', input: () => base },
        {
          name: 'breaker open for the whole call, fallback model',
          input: ({ clock, onCleanup }) => withBreaker(clock, onCleanup, { input: { failureThreshold: 1, windowMs: 60_000, cooldownMs: 3_600_000 }, calls: [{ at: 0, type: 'breaker.failure' }] }),
        },
        {
          // Opened by this call's own failures: the third attempt goes to the fallback model.
          name: 'breaker closed, opens after 2 failures, fallback model',
          input: ({ clock, onCleanup }) => withBreaker(clock, onCleanup, { input: { failureThreshold: 2, windowMs: 60_000, cooldownMs: 3_600_000 }, calls: [] }),
        },
        {
          // Open for 1.5 s: a retry that starts later goes back to the primary model.
          name: 'breaker open, closes during the call, fallback model',
          input: ({ clock, onCleanup }) => withBreaker(clock, onCleanup, { input: { failureThreshold: 1, windowMs: 60_000, cooldownMs: 1_500 }, calls: [{ at: 0, type: 'breaker.failure' }] }),
        },
      ],
      events: {
        'xstate.done.actor.generate': [{ output: result() }],
        'xstate.error.actor.generate': [{ error: errors.server() }, { error: errors.rateLimited() }, { error: errors.badRequest() }],
      },
      start: ({ machine, input, clock, inspect }) => ({ actor: createActor(machine, { input, clock, inspect }).start(), world: { now: () => clock.now() } }),
      oracle: expectLlmCall,
      // The model is not compared: the traversal's breaker never sees the clock or the failures
      // (its actions do not run), so only the oracle knows which model each attempt must use.
      project: (s) => {
        const c = s.context as LlmCallContext;
        return { value: s.value, attempts: c.attempts, retries: c.retries, error: c.lastError?.kind, backoffMs: c.backoffMs };
      },
    });
    expect(failures).toEqual([]);
    expect(paths.length).toBeGreaterThan(20);
    expect(coverage.states.uncovered).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
    // The wiring's recordRetry action ran during replays: retries were counted.
    const retries = await metrics.llmRetries.get();
    expect(retries.values.reduce((n, v) => n + v.value, 0)).toBeGreaterThan(0);
  });
});
