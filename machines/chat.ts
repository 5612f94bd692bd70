import { assign, fromPromise, setup } from 'xstate';
import type { LlmCallInput, LlmCallOutput } from './llmCall.js';
import type { Citation, GenerateResult } from '../actors/llm/types.js';
import type { ChatSettings, ChatTurn, Passage } from '../actors/docs/contract.js';
import { CHAT_SYSTEM_PROMPT, OUT_OF_SCOPE_ANSWER } from '../prompts/docs/chat.js';

/**
 * One question to the docs assistant, as steps (docs/docs-assistant.md#one-question-step-by-step-the-rules-the-code-relies-on):
 * retrieving → guarding → generating → checkingCitations → answered | outOfScope | failed.
 *
 * - `retrieve` (named actor) returns the top-k passages with normalised scores.
 * - The guard sends the question out of scope when no passage reaches the threshold; the model is
 *   not called at all on that path.
 * - `generate` (named actor) is the llmCall machine wired to the provider: the passages go as
 *   `documents` (Claude `search_result` blocks, numbered passages elsewhere).
 * - Checking citations keeps only citations naming a retrieved passage; the others are removed
 *   and flagged. A model that answers with the out-of-scope sentence ends in `outOfScope` too.
 * No I/O here: both actors are provided at wiring time (actors/docs/assistant.ts).
 */
export interface ChatInput {
  question: string;
  history: ChatTurn[];
  settings: ChatSettings;
  /** llmCall resilience knobs (from LLM_* configuration). */
  call: Omit<LlmCallInput, 'request'>;
}

export interface ChatContext extends ChatInput {
  passages: Passage[];
  result: GenerateResult | undefined;
  /** Passages actually cited, in citation order. */
  cited: Passage[];
  flagged: string[];
  answer: string;
  error: string | undefined;
  /** Which final state was reached (set on entry of each final state). */
  final: ChatState | undefined;
}

export type ChatState = 'answered' | 'outOfScope' | 'failed';

export interface ChatOutput {
  state: ChatState;
  answer: string;
  passages: Passage[];
  cited: Passage[];
  flagged: string[];
  result: GenerateResult | undefined;
  error: string | undefined;
}

/** The llmCall request for a question: pure, so tests can read what the model would get. */
export function buildLlmRequest(ctx: Pick<ChatContext, 'question' | 'history' | 'settings' | 'passages'>): LlmCallInput['request'] {
  const turns = ctx.settings.historyTurns > 0 ? ctx.history.slice(-ctx.settings.historyTurns * 2) : [];
  return {
    model: ctx.settings.model,
    system: CHAT_SYSTEM_PROMPT,
    messages: [...turns, { role: 'user', content: ctx.question }],
    documents: ctx.passages.map((p) => ({ id: p.id, title: `${p.path} › ${p.section}`, source: `${p.path}#${p.anchor}`, text: p.text })),
    maxTokens: ctx.settings.maxTokens,
    temperature: ctx.settings.temperature,
    purpose: 'chat',
  };
}

/** Splits citations into those naming a retrieved passage (deduplicated, in order) and the rest. */
export function checkCitations(citations: Citation[] | undefined, passages: Passage[]): { cited: Passage[]; flagged: string[] } {
  const byId = new Map(passages.map((p) => [p.id, p]));
  const cited: Passage[] = [];
  const flagged: string[] = [];
  for (const c of citations ?? []) {
    const p = byId.get(c.sourceId);
    if (!p) {
      if (!flagged.includes(c.sourceId)) flagged.push(c.sourceId);
    } else if (!cited.includes(p)) cited.push(p);
  }
  return { cited, flagged };
}

/** Removes `[n]` markers that point past the passages sent (an invented source). */
export function stripInventedMarkers(text: string, passageCount: number): string {
  return text.replace(/\s?\[(\d{1,3})\]/g, (m, n: string) => (Number(n) >= 1 && Number(n) <= passageCount ? m : ''));
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function declined(text: string): boolean {
  const norm = (s: string): string => s.replace(/[«»"“”'’\s.]/g, '').toLowerCase();
  return norm(text) === norm(OUT_OF_SCOPE_ANSWER);
}

export const chatMachine = setup({
  types: {
    input: {} as ChatInput,
    context: {} as ChatContext,
    output: {} as ChatOutput,
    events: {} as { type: 'chat.cancel' },
  },
  actors: {
    retrieve: fromPromise<Passage[], { question: string; k: number }>(async () => {
      throw new Error('chat: the retrieve actor is not provided');
    }),
    generate: fromPromise<LlmCallOutput, LlmCallInput>(async () => {
      throw new Error('chat: the generate actor is not provided');
    }),
  },
  guards: {
    hasRelevantPassage: ({ context }) => context.passages.some((p) => p.score >= context.settings.threshold),
    callSucceeded: (_, output: LlmCallOutput) => output.ok,
    modelDeclined: ({ context }) => declined(context.answer),
  },
  actions: {
    keepPassages: assign({ passages: (_, passages: Passage[]) => passages }),
    keepRelevant: assign({ passages: ({ context }) => context.passages.filter((p) => p.score >= context.settings.threshold) }),
    answerOutOfScope: assign({ answer: () => OUT_OF_SCOPE_ANSWER, cited: () => [] }),
    keepResult: assign({ result: (_, output: LlmCallOutput) => (output.ok ? output.result : undefined) }),
    keepCallError: assign({ error: (_, output: LlmCallOutput) => (output.ok ? undefined : `${output.error.kind}: ${output.error.message}`) }),
    keepCancelled: assign({ error: () => 'cancelled' }),
    checkCitations: assign(({ context }) => {
      const { cited, flagged } = checkCitations(context.result?.citations, context.passages);
      return { cited, flagged, answer: stripInventedMarkers(context.result?.text ?? '', context.passages.length).trim() };
    }),
  },
}).createMachine({
  id: 'chat',
  context: ({ input }) => ({ ...input, passages: [], result: undefined, cited: [], flagged: [], answer: '', error: undefined, final: undefined }),
  initial: 'retrieving',
  on: { 'chat.cancel': { target: '.failed', actions: 'keepCancelled' } },
  states: {
    retrieving: {
      invoke: {
        id: 'retrieve',
        src: 'retrieve',
        input: ({ context }) => ({ question: context.question, k: context.settings.k }),
        onDone: { target: 'guarding', actions: { type: 'keepPassages', params: ({ event }) => event.output } },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => describeError(event.error) }) },
      },
    },
    guarding: {
      always: [
        { guard: 'hasRelevantPassage', target: 'generating', actions: 'keepRelevant' },
        { target: 'outOfScope' },
      ],
    },
    generating: {
      invoke: {
        id: 'generate',
        src: 'generate',
        input: ({ context }) => ({ ...context.call, request: buildLlmRequest(context) }),
        onDone: [
          {
            guard: { type: 'callSucceeded', params: ({ event }) => event.output },
            target: 'checkingCitations',
            actions: { type: 'keepResult', params: ({ event }) => event.output },
          },
          { target: 'failed', actions: { type: 'keepCallError', params: ({ event }) => event.output } },
        ],
        onError: { target: 'failed', actions: assign({ error: ({ event }) => describeError(event.error) }) },
      },
    },
    checkingCitations: {
      entry: 'checkCitations',
      always: [{ guard: 'modelDeclined', target: 'outOfScope' }, { target: 'answered' }],
    },
    answered: { type: 'final', entry: assign({ final: 'answered' as const }) },
    outOfScope: { type: 'final', entry: ['answerOutOfScope', assign({ final: 'outOfScope' as const })] },
    failed: { type: 'final', entry: assign({ final: 'failed' as const }) },
  },
  output: ({ context }): ChatOutput => {
    return { state: context.final ?? 'failed', answer: context.answer, passages: context.passages, cited: context.cited, flagged: context.flagged, result: context.result, error: context.error };
  },
});
