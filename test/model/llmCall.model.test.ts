import { describe, expect, it } from 'vitest';
import { provideLlmCall } from '../../actors/llm/llmCallActor.js';
import { createMetrics } from '../../core/metrics.js';
import type { LlmCallContext } from '../../machines/llmCall.js';
import type { EventObject } from 'xstate';
import type { LlmError } from '../../actors/llm/types.js';
import { runModel, type OracleContext } from '../harness/index.js';
import { errors, openBreaker, request, result, unusedProvider } from './fixtures.js';

const base = { request, maxRetries: 2, attemptTimeoutMs: 1_000, backoffBaseMs: 100, retryAfterCapMs: 5_000, random: () => 0.5 };

/**
 * What the provider sees and what the caller gets, per docs/providers.md, from the path's events
 * alone: one attempt at a time; a transient failure (timeout, 429, 5xx) is retried after a backoff
 * at most `maxRetries` times, anything else fails at once; while the breaker is open every
 * attempt uses the fallback model; the output says how it ended, after how many attempts.
 */
function expectLlmCall({ events, controls, snapshot, end, check, input }: OracleContext): void {
  const given = input as typeof base & { fallbackModel?: string; breaker?: unknown };
  const model = given.breaker && given.fallbackModel ? given.fallbackModel : request.model;
  let phase: 'attempting' | 'backingOff' | 'succeeded' | 'failed' = 'attempting';
  let attempts = 1;
  let retries = 0;
  let lastKind: string | undefined;
  for (const e of events as Array<EventObject & { error?: LlmError }>) {
    if (phase === 'attempting' && e.type === 'xstate.done.actor.generate') phase = 'succeeded';
    else if (phase === 'attempting' && (e.type === 'xstate.error.actor.generate' || e.type.startsWith('xstate.after.attemptTimeout'))) {
      const transient = e.error ? e.error.transient : true;
      lastKind = e.error ? e.error.kind : 'timeout';
      if (transient && retries < given.maxRetries) {
        retries++;
        phase = 'backingOff';
      } else phase = 'failed';
    } else if (phase === 'backingOff' && e.type.startsWith('xstate.after.backoff')) {
      attempts++;
      phase = 'attempting';
    }
  }
  const calls = controls.all('generate');
  check(calls.length === attempts, `${attempts} attempt(s) reach the provider, got ${calls.length}`);
  for (const c of calls) check((c.input as { request: { model: string } }).request.model === model, `attempts use ${model}`);
  const running = calls.filter((c) => !c.settled && !c.signal.aborted).length;
  check(running === (phase === 'attempting' ? 1 : 0), `one attempt runs at a time, none while backing off or done (${running} in ${phase})`);
  if (!end || snapshot.status !== 'done') return;
  const out = snapshot.output as { ok: boolean; attempts: number; model: string; error?: { kind: string } };
  check(out.ok === (phase === 'succeeded') && out.attempts === attempts && out.model === model, `the caller gets ${phase} after ${attempts} attempt(s) on ${model}, got ${JSON.stringify(out)}`);
  if (!out.ok) check(out.error?.kind === lastKind, `the caller is told why: ${lastKind}, got ${out.error?.kind}`);
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
          name: 'breaker open, fallback model',
          input: ({ clock, onCleanup }) => {
            const breaker = openBreaker(clock);
            onCleanup(() => breaker.stop());
            return { ...base, breaker, fallbackModel: 'fallback-model' };
          },
        },
      ],
      events: {
        'xstate.done.actor.generate': [{ output: result() }],
        'xstate.error.actor.generate': [{ error: errors.server() }, { error: errors.rateLimited() }, { error: errors.badRequest() }],
      },
      oracle: expectLlmCall,
      project: (s) => {
        const c = s.context as LlmCallContext;
        return { value: s.value, attempts: c.attempts, retries: c.retries, model: c.model, error: c.lastError?.kind, backoffMs: c.backoffMs };
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
