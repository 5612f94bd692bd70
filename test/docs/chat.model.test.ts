import { describe, expect, it } from 'vitest';
import type { Passage } from '../../actors/docs/contract.js';
import type { GenerateResult } from '../../actors/llm/types.js';
import { chatMachine, type ChatContext, type ChatInput, type Retrieved } from '../../machines/chat.js';
import type { LlmCallOutput } from '../../machines/llmCall.js';
import { OUT_OF_SCOPE_ANSWER } from '../../prompts/docs/chat.js';
import { runModel } from '../harness/index.js';

/** Model-based test of the `chat` chart: every generated path replayed on a real actor. */
const passage = (id: string, score: number): Passage => ({ id, path: 'rgpd/14.md', section: 'Durées', anchor: 'durees', lineStart: 1, lineEnd: 3, text: 'Le dossier médical est conservé 20 ans.', lang: 'fr', score });
const retrieved = (passages: Passage[], signals: Partial<Retrieved['signals']> = {}): Retrieved => ({ passages, signals: { unseenShare: 0, unknownNames: [], namesNotRetrieved: [], liveData: false, ...signals } });

const input = (canJudge: boolean): ChatInput => ({
  question: 'Combien de temps garder un dossier médical ?',
  history: [],
  settings: { model: 'm', k: 5, threshold: 0.2, confident: 0.5, temperature: 0.2, maxTokens: 300, historyTurns: 2 },
  call: { maxRetries: 0, attemptTimeoutMs: 1000, backoffBaseMs: 10, retryAfterCapMs: 100 },
  lang: 'fr',
  canJudge,
});

const generated = (text: string, citations: GenerateResult['citations']): LlmCallOutput => ({
  ok: true,
  attempts: 1,
  model: 'm',
  result: { text, model: 'm', provider: 'anthropic', citations, usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 1 } },
});

describe('chat model', () => {
  it('replays every generated path and covers every state and transition', async () => {
    const { failures, paths, coverage } = await runModel({
      name: 'chat',
      machine: chatMachine,
      variants: [
        { name: 'with a provider (asks)', input: () => input(true) },
        { name: 'offline (no relevance call)', input: () => input(false) },
      ],
      events: {
        'xstate.done.actor.retrieve': [
          { output: retrieved([passage('p1', 0.8), passage('p2', 0.1)]) },
          { output: retrieved([passage('p3', 0.3)]) },
          { output: retrieved([passage('p4', 0.9)], { unknownNames: ['lyon'] }) },
          { output: retrieved([passage('p6', 0.9)], { liveData: true }) },
          { output: retrieved([passage('p7', 0.9)], { namesNotRetrieved: ['cnil'] }) },
          { output: retrieved([passage('p5', 0.6)], { unseenShare: 0.8 }) },
          { output: retrieved([]) },
        ],
        'xstate.error.actor.retrieve': [{ error: new Error('index unreadable') }],
        'xstate.done.actor.judge': [{ output: { ok: true, keep: ['p3'], ms: 5 } }, { output: { ok: true, keep: [], ms: 5 } }, { output: { ok: false, reason: 'timeout', ms: 4000 } }],
        'xstate.error.actor.judge': [{ error: new Error('judge bug') }],
        'xstate.done.actor.generate': [
          { output: generated('Vingt ans [1] [7].', [{ sourceId: 'p1' }, { sourceId: 'invented' }]) },
          { output: generated(OUT_OF_SCOPE_ANSWER, []) },
          { output: { ok: false, attempts: 1, model: 'm', error: { kind: 'server', message: 'HTTP 503' } } satisfies LlmCallOutput },
        ],
        'xstate.error.actor.generate': [{ error: new Error('provider bug') }],
        'chat.cancel': [{}],
      },
      project: (s) => {
        const c = s.context as ChatContext;
        return { value: s.value, passages: c.passages.map((p) => p.id), cited: c.cited.map((p) => p.id), flagged: c.flagged, answer: c.answer, final: c.final, band: c.band, confidence: c.confidence, notice: c.notice };
      },
    });
    expect(failures).toEqual([]);
    expect(paths.length).toBeGreaterThan(5);
    expect(coverage.states.uncovered).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
  });
});
