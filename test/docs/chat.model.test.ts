import { describe, expect, it } from 'vitest';
import type { EventObject } from 'xstate';
import type { Passage } from '../../actors/docs/contract.js';
import type { GenerateResult } from '../../actors/llm/types.js';
import { chatMachine, type ChatContext, type ChatInput } from '../../machines/chat.js';
import type { LlmCallOutput } from '../../machines/llmCall.js';
import { OUT_OF_SCOPE_ANSWER } from '../../prompts/docs/chat.js';
import { runModel, type OracleContext } from '../harness/index.js';

/** Model-based test of the `chat` chart: every generated path replayed on a real actor. */
const passage = (id: string, score: number): Passage => ({ id, path: 'rgpd/14.md', section: 'Durées', anchor: 'durees', lineStart: 1, lineEnd: 3, text: 'Le dossier médical est conservé 20 ans.', score });

const input: ChatInput = {
  question: 'Combien de temps garder un dossier médical ?',
  history: [],
  settings: { model: 'm', k: 5, threshold: 0.3, temperature: 0.2, maxTokens: 300, historyTurns: 2 },
  call: { maxRetries: 0, attemptTimeoutMs: 1000, backoffBaseMs: 10, retryAfterCapMs: 100 },
};

const turns: ChatInput['history'] = [1, 2, 3].flatMap((n) => [
  { role: 'user' as const, content: `question ${n}` },
  { role: 'assistant' as const, content: `réponse ${n}` },
]);
const withHistory = (historyTurns: number): ChatInput => ({ ...input, history: turns, settings: { ...input.settings, historyTurns } });

const generated = (text: string, citations: GenerateResult['citations']): LlmCallOutput => ({
  ok: true,
  attempts: 1,
  model: 'm',
  result: { text, model: 'm', provider: 'anthropic', citations, usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 1 } },
});

type Done<T> = EventObject & { output: T };

/**
 * What docs/docs-assistant.md promises, computed from the path's events alone (never from the
 * chart): the model is called once iff a passage reaches the threshold, with exactly those
 * passages; the answer's state, text, citations and flags follow from what the model returned.
 */
function expectChat({ events, controls, snapshot, end, check, input: given }: OracleContext): void {
  const input = given as ChatInput;
  const threshold = input.settings.threshold;
  const retrieved = (events.find((e) => e.type === 'xstate.done.actor.retrieve') as Done<Passage[]> | undefined)?.output;
  const relevant = retrieved?.filter((p) => p.score >= threshold) ?? [];
  const calls = controls.all('generate');
  // A cancel before the passages arrive ends the question: no `done` of retrieve follows it.
  const expectCall = retrieved !== undefined && relevant.length > 0;
  check(calls.length === (expectCall ? 1 : 0), `the model is called ${expectCall ? 'once' : 'never'} (relevant passages: ${relevant.length}), got ${calls.length} call(s)`);
  for (const call of calls) {
    const req = (call.input as { request: { model: string; documents?: Array<{ id: string }>; messages: Array<{ content: string }>; purpose: string } }).request;
    check(req.model === input.settings.model && req.purpose === 'chat', `the model call uses ${input.settings.model} for chat, got ${req.model}/${req.purpose}`);
    check(JSON.stringify(req.documents?.map((d) => d.id)) === JSON.stringify(relevant.map((p) => p.id)), `only passages at or above the threshold are sent: ${relevant.map((p) => p.id).join(',')}`);
    check(req.messages[req.messages.length - 1]?.content === input.question, 'the question is the last message');
    // CHAT_HISTORY_TURNS exchanges of history (two messages each) go before it; 0 sends none.
    const history = input.history.slice(input.history.length - Math.min(input.history.length, input.settings.historyTurns * 2));
    check(JSON.stringify(req.messages.slice(0, -1)) === JSON.stringify(history), `the last ${input.settings.historyTurns} exchange(s) of history go with the question`);
  }
  if (!end || snapshot.status !== 'done') return;
  const out = snapshot.output as { state: string; answer: string; cited: Passage[]; flagged: string[]; error?: string };
  if (events.some((e) => e.type === 'chat.cancel')) check(out.error === 'cancelled', `a cancelled question says so, got error ${out.error}`);
  const generated = (events.find((e) => e.type === 'xstate.done.actor.generate') as Done<LlmCallOutput> | undefined)?.output;
  let expected: { state: string; answer?: string; cited?: string[]; flagged?: string[] };
  if (events.some((e) => e.type === 'chat.cancel') || events.some((e) => e.type.startsWith('xstate.error.actor.')) || retrieved === undefined) expected = { state: 'failed' };
  else if (relevant.length === 0) expected = { state: 'outOfScope', answer: OUT_OF_SCOPE_ANSWER, cited: [] };
  else if (!generated?.ok) expected = { state: 'failed' };
  else if (generated.result.text === OUT_OF_SCOPE_ANSWER) expected = { state: 'outOfScope', answer: OUT_OF_SCOPE_ANSWER, cited: [] };
  else {
    const ids = relevant.map((p) => p.id);
    const named = (generated.result.citations ?? []).map((c) => c.sourceId);
    expected = {
      state: 'answered',
      // Markers past the passages sent are invented: removed from the text.
      answer: generated.result.text.replace(/\s?\[(\d+)\]/g, (m, n: string) => (Number(n) <= relevant.length ? m : '')).trim(),
      cited: [...new Set(named.filter((id) => ids.includes(id)))],
      flagged: [...new Set(named.filter((id) => !ids.includes(id)))],
    };
  }
  check(out.state === expected.state, `the question ends ${expected.state}, got ${out.state}`);
  if (expected.state === 'failed' && !events.some((e) => e.type === 'chat.cancel')) {
    // Why it failed, for the log and the API's error: the provider's error or the crash.
    const crash = events.find((e) => e.type.startsWith('xstate.error.actor.')) as (EventObject & { error: Error }) | undefined;
    const why = crash ? crash.error.message : generated && !generated.ok ? `${generated.error.kind}: ${generated.error.message}` : undefined;
    check(out.error === why, `a failure says why (${why}), got ${out.error}`);
  }
  if (expected.answer !== undefined) check(out.answer === expected.answer, `answer ${JSON.stringify(expected.answer)}, got ${JSON.stringify(out.answer)}`);
  if (expected.cited) check(JSON.stringify(out.cited.map((p) => p.id)) === JSON.stringify(expected.cited), `cites ${expected.cited.join(',')}`);
  if (expected.flagged) check(JSON.stringify(out.flagged) === JSON.stringify(expected.flagged), `flags ${expected.flagged.join(',')}`);
}

describe('chat model', () => {
  it('replays every generated path and covers every state and transition', async () => {
    const { failures, paths, coverage } = await runModel({
      name: 'chat',
      machine: chatMachine,
      variants: [
        { name: 'threshold 0.3', input: () => input },
        { name: 'three exchanges of history, two kept', input: () => withHistory(2) },
        { name: 'history off', input: () => withHistory(0) },
      ],
      events: {
        'xstate.done.actor.retrieve': [{ output: [passage('p1', 0.8), passage('p2', 0.1)] }, { output: [passage('p3', 0.2)] }, { output: [passage('p4', 0.3)] }, { output: [] }],
        'xstate.error.actor.retrieve': [{ error: new Error('index unreadable') }],
        'xstate.done.actor.generate': [
          { output: generated('Vingt ans [1] [7].', [{ sourceId: 'p1' }, { sourceId: 'invented' }]) },
          { output: generated(OUT_OF_SCOPE_ANSWER, []) },
          { output: { ok: false, attempts: 1, model: 'm', error: { kind: 'server', message: 'HTTP 503' } } satisfies LlmCallOutput },
        ],
        'xstate.error.actor.generate': [{ error: new Error('provider bug') }],
        'chat.cancel': [{}],
      },
      oracle: expectChat,
      project: (s) => {
        const c = s.context as ChatContext;
        return { value: s.value, passages: c.passages.map((p) => p.id), cited: c.cited.map((p) => p.id), flagged: c.flagged, answer: c.answer, final: c.final };
      },
    });
    expect(failures).toEqual([]);
    expect(paths.length).toBeGreaterThan(5);
    expect(coverage.states.uncovered).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
    expect(coverage.oracleChecks).toBeGreaterThan(paths.length * 2);
  });
});
