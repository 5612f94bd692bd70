import type { CorrectionContext, CorrectionInput, CorrectionOutput } from '../../machines/correction.js';
import type { LlmCallOutput } from '../../machines/llmCall.js';
import type { OracleContext } from '../harness/index.js';
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { assembleReport } from '../../actors/corrections/assemble.js';
import { validWrittenAnswer, T1_CONSIGNE, T1_TEXTE } from './support.js';
import type { Production } from '../../prompts/corrections/tasks.js';

/**
 * The `correction` model spec shared by the bare-chart test (correction.model.test.ts) and the one
 * replayed through the real engine and HTTP edge (correction.http.model.test.ts).
 */

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

type Payload = EventObject & { output?: unknown; error?: unknown };
interface CallInput {
  request: { model: string; json?: boolean; purpose: string; messages: Array<{ role: string; content: string }> };
}

/**
 * What docs/corrections.md promises, from the path's events alone: the model is never asked when
 * the provider is offline, is asked once and repaired at most once; an answer reaches the report
 * only once valid; anything else gives the detectors' report with the reason; a report is stored
 * exactly once, as the detectors merged it, and only then is the request answered with it.
 */
/** What the request must be answered with, from the path's events: the stored report and its id, or a failure. */
export type ExpectedAnswer = { ok: true; report: unknown; productionId: unknown } | { ok: false };

/** `seen`: called at the end of a request that finished, to check what a transport delivered. */
export function expectCorrection({ events, controls, snapshot, end, check, input: given }: OracleContext, seen?: (expected: ExpectedAnswer) => void): void {
  const input = given as CorrectionInput;
  const calls = controls.all('llmCall');
  const repairs = controls.all('repairCall');
  const validations = controls.all('validate');
  const merges = controls.all('mergeDetectors');
  const saves = controls.all('save');
  check(!input.offline || calls.length + repairs.length === 0, 'nothing is sent to a model for an offline provider');
  check(calls.length <= 1 && repairs.length <= 1, `one call and at most one repair, got ${calls.length}+${repairs.length}`);
  const prompted = events.some((e) => e.type === 'xstate.done.actor.buildPrompt');
  check(calls.length === (prompted && !input.offline ? 1 : 0), `the model is asked once a prompt is built and the provider is online, got ${calls.length}`);
  for (const call of [...calls, ...repairs]) {
    const { request } = call.input as CallInput;
    check(request.model === input.model && request.json === true && request.purpose === 'correction', `model calls use ${input.model} in JSON mode, got ${request.model}`);
  }
  // Answers of the model, in order; each successful call is validated, and only those.
  const answers = events.filter((e): e is Payload => /^xstate\.done\.actor\.(llmCall|repairCall)$/.test(e.type)).map((e) => e.output as LlmCallOutput);
  const okAnswers = answers.filter((a) => a.ok);
  check(validations.length === okAnswers.length, `every answer the model gave is validated, and only those: ${okAnswers.length} vs ${validations.length}`);
  validations.forEach((v, i) => {
    const a = okAnswers[i];
    check(a !== undefined && a.ok && (v.input as { answer: string }).answer === a.result.text, 'the validator gets the answer as the model gave it');
  });
  const verdicts = events.filter((e): e is Payload => e.type === 'xstate.done.actor.validate').map((e) => e.output as { ok: boolean; repairMessage?: string });
  // A repair follows the first invalid answer, carrying the validator's message after the answer.
  const firstInvalid = verdicts.findIndex((v) => !v.ok);
  check(repairs.length === (firstInvalid === 0 ? 1 : 0), `one repair round after an invalid first answer, got ${repairs.length}`);
  for (const r of repairs) {
    const msgs = (r.input as CallInput).request.messages;
    check(msgs[msgs.length - 1]?.content === verdicts[0]?.repairMessage && msgs[msgs.length - 2]?.role === 'assistant', 'the repair sends the answer back with the validation errors');
  }
  // The report's source: reason from the first thing that went wrong.
  const deadline = events.some((e) => e.type.startsWith('xstate.after.gradingDeadline'));
  const failedCall = answers.some((a) => !a.ok) || events.some((e) => /^xstate\.error\.actor\.(llmCall|repairCall)$/.test(e.type));
  const invalidTwice = verdicts.filter((v) => !v.ok).length >= 2 || events.some((e) => e.type === 'xstate.error.actor.validate');
  const valid = verdicts.some((v) => v.ok);
  const reason = input.offline ? 'offline_provider' : deadline ? 'timeout' : failedCall ? 'model_unreachable' : invalidTwice ? 'invalid_after_repair' : undefined;
  check(merges.length <= 1, 'the detectors merge once');
  for (const m of merges) {
    const mi = m.input as { model?: unknown; fallback?: { reason: string } };
    check(mi.fallback?.reason === reason, `the report says why the model was left out: ${reason}, got ${mi.fallback?.reason}`);
    check((mi.model !== undefined) === (valid && reason === undefined), 'a model answer reaches the report only once valid');
    const last = okAnswers[okAnswers.length - 1];
    if (mi.model !== undefined) check(last?.ok === true && (mi.model as { name: string }).name === last.result.model, 'the report names the model that answered');
  }
  const merged = events.find((e) => e.type === 'xstate.done.actor.mergeDetectors') as Payload | undefined;
  check(saves.length === (merged ? 1 : 0), `a report is stored exactly once, after the merge: ${saves.length}`);
  for (const save of saves) check((save.input as { report: unknown }).report === merged?.output, 'the stored report is the merged one');
  if (!end || snapshot.status !== 'done') return;
  const saved = events.find((e) => e.type === 'xstate.done.actor.save') as Payload | undefined;
  const out = snapshot.output as CorrectionOutput;
  seen?.(saved ? { ok: true, report: merged?.output, productionId: saved.output } : { ok: false });
  check(out.ok === Boolean(saved), `the request is answered with a report iff it was stored, got ok=${out.ok}`);
  if (out.ok) check(out.report === merged?.output && out.productionId === saved?.output, 'the answer is the stored report and its id');
  else {
    // The error the service throws (and logs) names the step that broke and why.
    const broke = events.find((e): e is Payload => /^xstate\.error\.actor\.(buildPrompt|mergeDetectors|save)$/.test(e.type));
    const step = { buildPrompt: 'building the prompt', mergeDetectors: 'merging detectors', save: 'saving' }[broke?.type.split('.').pop() ?? ''];
    check(broke !== undefined && out.error === `${step}: ${(broke.error as Error).message}`, `the error names the step that broke, got ${out.error}`);
  }
}

export const variants: Array<{ name: string; input: () => CorrectionInput }> = [
  { name: 'provider with a key', input: () => input(false) },
  { name: 'offline provider', input: () => input(true) },
];

export const samples = {
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
};

export const project = (s: AnyMachineSnapshot): unknown => {
  const c = s.context as CorrectionContext;
  return { value: s.value, fallback: c.fallback?.reason, repaired: c.repaired, valid: Boolean(c.modelOutput), saved: c.productionId };
};
