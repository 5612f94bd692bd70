import type { GenerateRequest, GenerateResult, LlmProvider } from '../../machines/llmPort.js';

/**
 * An in-memory LlmProvider for machine tests (the port, not an SDK): each call takes the next
 * scripted outcome — a result, an error to throw, or `hang` (never settles until aborted).
 */
export type Outcome = GenerateResult | Error | 'hang';

export interface ScriptedProvider extends LlmProvider {
  calls: GenerateRequest[];
}

export function scriptedProvider(...outcomes: Outcome[]): ScriptedProvider {
  const calls: GenerateRequest[] = [];
  return {
    name: 'offline',
    calls,
    generate(req) {
      calls.push(req);
      const next = outcomes.shift();
      if (next === undefined) return Promise.reject(new Error('scriptedProvider: no outcome left'));
      if (next === 'hang') {
        return new Promise((_, reject) => req.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
      }
      if (next instanceof Error) return Promise.reject(next);
      return Promise.resolve({ ...next, model: req.model });
    },
  };
}
