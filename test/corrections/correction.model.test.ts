import { describe, expect, it } from 'vitest';
import { correctionMachine, type CorrectionContext, type CorrectionInput } from '../../machines/correction.js';
import { runModel } from '../harness/index.js';
import { assembleReport } from '../../actors/corrections/assemble.js';
import { validWrittenAnswer, T1_CONSIGNE, T1_TEXTE } from './support.js';
import type { Production } from '../../actors/corrections/production.js';

const production: Production = { epreuve: 'EE', tache: 'EE_T1', consigne: T1_CONSIGNE, texte: T1_TEXTE };
const input = (offline: boolean): CorrectionInput => ({
  production,
  offline,
  model: 'grader',
  maxTokens: 1000,
  gradingDeadlineMs: 52_000,
  call: { maxRetries: 0, attemptTimeoutMs: 40_000, backoffBaseMs: 100, retryAfterCapMs: 1_000 },
});
const report = assembleReport({ production, findings: [], fallback: { reason: 'offline_provider' } });
const okCall = { ok: true, attempts: 1, model: 'grader', result: { text: '{}', model: 'grader', provider: 'openai', usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 1 } } };
const failedCall = { ok: false, attempts: 1, model: 'grader', error: { kind: 'server', message: '500' } };

describe('correction statechart, model-based', () => {
  it('replays every generated path and covers every state and transition', async () => {
    const { failures, paths, coverage } = await runModel({
      name: 'correction',
      machine: correctionMachine,
      variants: [
        { name: 'provider with a key', input: () => input(false) },
        { name: 'offline provider', input: () => input(true) },
      ],
      events: {
        'xstate.done.actor.buildPrompt': [{ output: { system: 'système', messages: [{ role: 'user', content: 'production' }] } }],
        'xstate.error.actor.buildPrompt': [{ error: new Error('template') }],
        'xstate.done.actor.llmCall': [{ output: okCall }, { output: failedCall }],
        'xstate.error.actor.llmCall': [{ error: new Error('crash') }],
        'xstate.done.actor.repairCall': [{ output: okCall }, { output: failedCall }],
        'xstate.error.actor.repairCall': [{ error: new Error('crash') }],
        'xstate.done.actor.validate': [{ output: { ok: true, value: validWrittenAnswer() } }, { output: { ok: false, errors: ['erreurs[0] : extrait inventé'], repairMessage: 'corrige' } }],
        'xstate.error.actor.validate': [{ error: new Error('validator bug') }],
        'xstate.done.actor.mergeDetectors': [{ output: report }],
        'xstate.error.actor.mergeDetectors': [{ error: new Error('detector bug') }],
        'xstate.done.actor.save': [{ output: 'prod-1' }],
        'xstate.error.actor.save': [{ error: new Error('disk full') }],
      },
      project: (s) => {
        const c = s.context as CorrectionContext;
        return { value: s.value, fallback: c.fallback?.reason, repaired: c.repaired, valid: Boolean(c.modelOutput), saved: c.productionId };
      },
    });
    expect(failures).toEqual([]);
    expect(paths.length).toBeGreaterThan(10);
    expect(coverage.states.uncovered).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
  });
});
