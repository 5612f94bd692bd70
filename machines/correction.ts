import { assign, fromPromise, setup } from 'xstate';
import { llmCallMachine, type LlmCallInput, type LlmCallOutput } from './llmCall.js';
import type { ChatMessage } from '../prompts/chatMessage.js';
import type { Production } from '../prompts/corrections/tasks.js';
import type { ModelOutput } from '../prompts/corrections/modelOutput.js';
import type { FallbackReason, Report } from './correctionReport.js';

/**
 * One graded report, as steps (docs/corrections.md#how-a-report-is-made):
 * buildingPrompt → grading(callingModel → validating → repairing → validating) → mergingDetectors
 * → saving → done | failed.
 *
 * - The model is asked once; an invalid answer gets ONE repair round with the validation errors.
 * - Offline provider, unreachable model, an answer still invalid after the repair, or the grading
 *   deadline: the report comes from the detectors alone, marked with the reason. So a candidate
 *   always gets a valid report, and nothing of an invalid answer goes further than `validating`.
 * - `failed` is reached only when building, merging or saving itself breaks (a bug or the disk).
 * Every step is a named actor provided at wiring time (actors/corrections/correctionsWiring.ts); the
 * deadline is the named delay `gradingDeadline`. No I/O, no SDK here.
 */

export interface CorrectionInput {
  production: Production;
  /** True when the resolved provider is `offline`: the model is not called at all. */
  offline: boolean;
  /** Model id (CORRECTION_MODEL). */
  model: string;
  /** llmCall resilience knobs (LLM_* configuration). */
  call: Omit<LlmCallInput, 'request'>;
  /** Grading deadline, ms: past it the detectors answer alone (kept below the HTTP limit). */
  gradingDeadlineMs: number;
  maxTokens: number;
}

interface PromptOutput {
  system: string;
  messages: ChatMessage[];
}

export type ValidateOutput = { ok: true; value: ModelOutput } | { ok: false; errors: string[]; repairMessage: string };

interface MergeInput {
  production: Production;
  model: { output: ModelOutput; name: string } | undefined;
  fallback: { reason: FallbackReason; detail?: string } | undefined;
}

interface SaveInput {
  production: Production;
  report: Report;
}

export interface CorrectionContext extends CorrectionInput {
  prompt: PromptOutput | undefined;
  /** The model's last answer (only ever passed to `validate` and, once, back to the model). */
  answer: string | undefined;
  answeredBy: string | undefined;
  validationErrors: string[];
  repairMessage: string | undefined;
  repaired: boolean;
  modelOutput: ModelOutput | undefined;
  fallback: { reason: FallbackReason; detail?: string } | undefined;
  report: Report | undefined;
  productionId: string | undefined;
  error: string | undefined;
}

export type CorrectionOutput =
  | { ok: true; report: Report; productionId: string }
  | { ok: false; error: string };

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const correction = setup({
  types: {
    input: {} as CorrectionInput,
    context: {} as CorrectionContext,
    output: {} as CorrectionOutput,
  },
  actors: {
    buildPrompt: fromPromise<PromptOutput, { production: Production }>(async () => {
      throw new Error('buildPrompt is provided at wiring time');
    }),
    /** The llmCall machine; its `generate` actor is provided with the provider at wiring time. */
    llmCall: llmCallMachine,
    validate: fromPromise<ValidateOutput, { answer: string; production: Production }>(async () => {
      throw new Error('validate is provided at wiring time');
    }),
    mergeDetectors: fromPromise<Report, MergeInput>(async () => {
      throw new Error('mergeDetectors is provided at wiring time');
    }),
    save: fromPromise<string, SaveInput>(async () => {
      throw new Error('save is provided at wiring time');
    }),
  },
  guards: {
    offlineProvider: ({ context }) => context.offline,
    callSucceeded: (_, params: { output: LlmCallOutput }) => params.output.ok,
    answerValid: (_, params: { output: ValidateOutput }) => params.output.ok,
    canRepair: ({ context }) => !context.repaired,
  },
  delays: {
    gradingDeadline: ({ context }) => context.gradingDeadlineMs,
  },
  actions: {
    fallBack: assign((_, params: { reason: FallbackReason; detail?: string }) => ({
      fallback: params.detail ? { reason: params.reason, detail: params.detail } : { reason: params.reason },
    })),
    keepAnswer: assign((_, params: { output: LlmCallOutput }) => (params.output.ok ? { answer: params.output.result.text, answeredBy: params.output.result.model } : {})),
  },
});

/** The request of a model call: the built prompt, plus `extra` messages (the repair round). */
function modelRequest(context: CorrectionContext, extra: ChatMessage[]): LlmCallInput {
  return {
    ...context.call,
    request: {
      model: context.model,
      system: context.prompt!.system,
      messages: [...context.prompt!.messages, ...extra],
      json: true,
      maxTokens: context.maxTokens,
      temperature: 0.2,
      purpose: 'correction',
    },
  };
}

/**
 * Asking the model, the first time and for the repair alike: an answer goes to the validator; a
 * call that failed (or crashed) leaves the detectors to answer alone, as `model_unreachable`.
 */
function askingModel(id: 'llmCall' | 'repairCall', extra: (context: CorrectionContext) => ChatMessage[]) {
  return correction.createStateConfig({
    invoke: {
      id,
      src: 'llmCall',
      input: ({ context }) => modelRequest(context, extra(context)),
      onDone: [
        {
          guard: { type: 'callSucceeded', params: ({ event }) => ({ output: event.output }) },
          target: 'validating',
          actions: { type: 'keepAnswer', params: ({ event }) => ({ output: event.output }) },
        },
        {
          target: '#correction.mergingDetectors',
          actions: { type: 'fallBack', params: ({ event }) => ({ reason: 'model_unreachable' as const, detail: event.output.ok ? undefined : event.output.error.kind }) },
        },
      ],
      onError: { target: '#correction.mergingDetectors', actions: { type: 'fallBack', params: ({ event }) => ({ reason: 'model_unreachable' as const, detail: errorText(event.error) }) } },
    },
  });
}

export const correctionMachine = correction.createMachine({
  id: 'correction',
  description: 'Grades one written or spoken production: detectors and the grading model, merged into a stored report.',
  context: ({ input }) => ({
    ...input,
    prompt: undefined,
    answer: undefined,
    answeredBy: undefined,
    validationErrors: [],
    repairMessage: undefined,
    repaired: false,
    modelOutput: undefined,
    fallback: undefined,
    report: undefined,
    productionId: undefined,
    error: undefined,
  }),
  initial: 'buildingPrompt',
  states: {
    buildingPrompt: {
      description: 'Builds the grading prompt from the production (no model call yet).',
      invoke: {
        id: 'buildPrompt',
        src: 'buildPrompt',
        input: ({ context }) => ({ production: context.production }),
        onDone: [
          // Offline: the prompt is not needed, the detectors answer alone.
          { guard: 'offlineProvider', target: 'mergingDetectors', actions: { type: 'fallBack', params: { reason: 'offline_provider' } } },
          { target: 'grading', actions: assign({ prompt: ({ event }) => event.output }) },
        ],
        onError: { target: 'failed', actions: assign({ error: ({ event }) => `building the prompt: ${errorText(event.error)}` }) },
      },
    },
    grading: {
      description: 'The model grades, within the grading deadline; past it the detectors answer alone.',
      initial: 'callingModel',
      after: {
        gradingDeadline: { target: 'mergingDetectors', actions: { type: 'fallBack', params: { reason: 'timeout' } } },
      },
      states: {
        callingModel: {
          description: 'One call to the grading model, in JSON mode.',
          ...askingModel('llmCall', () => []),
        },
        validating: {
          description: 'Checks the answer against the report schema and the taxonomy.',
          invoke: {
            id: 'validate',
            src: 'validate',
            input: ({ context }) => ({ answer: context.answer ?? '', production: context.production }),
            onDone: [
              {
                guard: { type: 'answerValid', params: ({ event }) => ({ output: event.output }) },
                target: '#correction.mergingDetectors',
                actions: assign({ modelOutput: ({ event }) => (event.output.ok ? event.output.value : undefined) }),
              },
              {
                guard: 'canRepair',
                target: 'repairing',
                actions: assign(({ event }) => (event.output.ok ? {} : { validationErrors: event.output.errors, repairMessage: event.output.repairMessage })),
              },
              {
                target: '#correction.mergingDetectors',
                actions: [
                  assign({ validationErrors: ({ event }) => (event.output.ok ? [] : event.output.errors) }),
                  { type: 'fallBack', params: { reason: 'invalid_after_repair' } },
                ],
              },
            ],
            onError: { target: '#correction.mergingDetectors', actions: { type: 'fallBack', params: ({ event }) => ({ reason: 'invalid_after_repair' as const, detail: errorText(event.error) }) } },
          },
        },
        repairing: {
          description: 'The one repair round: the answer goes back with the validation errors.',
          entry: assign({ repaired: true }),
          ...askingModel('repairCall', (context) => [
            { role: 'assistant' as const, content: context.answer ?? '' },
            { role: 'user' as const, content: context.repairMessage ?? '' },
          ]),
        },
      },
    },
    mergingDetectors: {
      description: 'Merges the detectors’ findings with the valid model answer, or builds the report from the detectors alone.',
      invoke: {
        id: 'mergeDetectors',
        src: 'mergeDetectors',
        input: ({ context }) => ({
          production: context.production,
          model: context.modelOutput && !context.fallback ? { output: context.modelOutput, name: context.answeredBy ?? context.model } : undefined,
          fallback: context.fallback,
        }),
        onDone: { target: 'saving', actions: assign({ report: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => `merging detectors: ${errorText(event.error)}` }) },
      },
    },
    saving: {
      description: 'Stores the production and its report.',
      invoke: {
        id: 'save',
        src: 'save',
        input: ({ context }) => ({ production: context.production, report: context.report! }),
        onDone: { target: 'done', actions: assign({ productionId: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => `saving: ${errorText(event.error)}` }) },
      },
    },
    done: { type: 'final', description: 'The report is stored; the request is answered with it.' },
    failed: { type: 'final', description: 'Building, merging or saving broke: the request gets an error.' },
  },
  output: ({ context }) =>
    context.report && context.productionId
      ? { ok: true as const, report: context.report, productionId: context.productionId }
      : { ok: false as const, error: context.error ?? 'correction failed' },
});
