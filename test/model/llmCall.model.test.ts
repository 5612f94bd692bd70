import { describe, expect, it } from 'vitest';
import { provideLlmCall } from '../../actors/llm/llmCallActor.js';
import { createMetrics } from '../../core/metrics.js';
import type { LlmCallContext } from '../../machines/llmCall.js';
import { runModel } from '../harness/index.js';
import { errors, openBreaker, request, result, unusedProvider } from './fixtures.js';

const base = { request, maxRetries: 2, attemptTimeoutMs: 1_000, backoffBaseMs: 100, retryAfterCapMs: 5_000, random: () => 0.5 };

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
