import type { AnyMachineSnapshot, EventObject } from 'xstate';
import type { Passage } from '../../machines/chatContract.js';
import type { GenerateResult } from '../../machines/llmPort.js';
import type { ChatContext, ChatInput, JudgeOutput, Retrieved, VerifyOutput } from '../../machines/chat.js';
import type { LlmCallOutput } from '../../machines/llmCall.js';
import { LOW_CONFIDENCE_NOTICES, OUT_OF_SCOPE_ANSWER, OUT_OF_SCOPE_ANSWERS } from '../../prompts/docs/chatPrompt.js';
import type { OracleContext } from '../harness/index.js';

/**
 * The `chat` model spec shared by the bare-chart test (chat.model.test.ts) and the one replayed
 * through the real assistant and HTTP API (chat.http.model.test.ts): samples, variants, oracle.
 */
const passage = (id: string, score: number, anchor = 'durees'): Passage => ({ id, path: 'rgpd/14.md', section: 'Durées', anchor, lineStart: 1, lineEnd: 3, text: 'Le dossier médical est conservé 20 ans.', lang: 'fr', score });
const retrieved = (passages: Passage[], signals: Partial<Retrieved['signals']> = {}): Retrieved => ({ passages, signals: { unseenShare: 0, unknownNames: [], namesNotRetrieved: [], liveData: false, inScope: 0, ...signals } });

const input = (canJudge: boolean, canVerify = false): ChatInput => ({
  question: 'Combien de temps garder un dossier médical ?',
  history: [],
  settings: { model: 'm', k: 5, threshold: 0.2, confident: 0.5, temperature: 0.2, maxTokens: 300, historyTurns: 2 },
  call: { maxRetries: 0, attemptTimeoutMs: 1000, backoffBaseMs: 10, retryAfterCapMs: 100 },
  lang: 'fr',
  canJudge,
  canVerify,
});

const turns: ChatInput['history'] = [1, 2, 3].flatMap((n) => [
  { role: 'user' as const, content: `question ${n}` },
  { role: 'assistant' as const, content: `réponse ${n}` },
]);
const withHistory = (canJudge: boolean, historyTurns: number): ChatInput => {
  const base = input(canJudge);
  return { ...base, history: turns, settings: { ...base.settings, historyTurns } };
};

const generated = (text: string, citations: GenerateResult['citations']): LlmCallOutput => ({
  ok: true,
  attempts: 1,
  model: 'm',
  result: { text, model: 'm', provider: 'anthropic', citations, usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 1 } },
});

type Done<T> = EventObject & { output: T };

/**
 * What docs/docs-assistant.md promises, computed from the path's events alone (never from the
 * chart). The guard refuses on the best retrieved score and answers "high" on the learned
 * probability `signals.inScope` (the other cues are its features, not rules):
 * - refuse (no judge, no model): nothing retrieved, best < threshold, or ≥ 75 % unseen weight;
 * - answer "high": inScope ≥ confident;
 * - otherwise ask: with a provider one relevance call on every passage retrieved (none kept →
 *   refused; some → answered "high" from those only; no verdict → answered "low" with the
 *   notice); offline no call, answered "low" with the notice.
 * The model gets the retrieved passages (or those the verdict kept), the question last and CHAT_HISTORY_TURNS exchanges before it;
 * the answer's marks name only passages sent, renumbered, and its sources follow.
 */
/** What the oracle expects of a question that ended, computed from the path's events. */
export interface ExpectedChat {
  state: string;
  answer?: string;
  confidence?: string;
  cited?: string[];
  flagged?: string[];
  removed?: number;
  cancelled: boolean;
  /** Every passage the path retrieved, by id (the sources name them). */
  passages: Map<string, Passage>;
}

/** `seen`: called at the end of a question with what was expected, to check what a transport delivered. */
export function expectChat({ events, controls, snapshot, end, check, input: given }: OracleContext, seen?: (expected: ExpectedChat) => void): void {
  const input = given as ChatInput;
  const { threshold, confident } = input.settings;
  const cancelled = events.some((e) => e.type === 'chat.cancel');
  const got = (events.find((e) => e.type === 'xstate.done.actor.retrieve') as Done<Retrieved> | undefined)?.output;
  const best = (got?.passages ?? []).reduce((m, p) => Math.max(m, p.score), 0);
  const sig = got?.signals;
  // Past the guard every retrieved passage goes on, under the low bound too (§ Sixth round).
  const relevant = got?.passages ?? [];
  // Two words or more and no passage holding two of them together, or two at most while most of
  // the weight is in two words or more the corpus never uses: refused too (§ Scope).
  const scattered =
    sig?.scope !== undefined &&
    sig.scope.contentWords >= 2 &&
    (sig.scope.heldTogether <= 1 || (sig.scope.heldTogether <= 2 && sig.unseenShare >= 0.55 && (sig.scope.unseenWords ?? 0) >= 2));
  // A name the corpus never uses (or a specific one no passage found holds), a short question and
  // at most two words held together: refused (§ Scope).
  const namedElsewhere = sig?.scope !== undefined && (sig.scope.absentNames ?? sig.unknownNames).length > 0 && sig.scope.heldTogether < 3 && sig.scope.contentWords <= 7;
  // A question about the world now is refused: docs are not a live source.
  const refuse = got !== undefined && (best < threshold || sig!.unseenShare >= 0.75 || scattered || namedElsewhere || sig!.liveData);
  // A named thing no passage mentions keeps the answer from "high".
  const high = got !== undefined && !refuse && sig!.inScope >= confident && (sig!.scope?.unknownThings.length ?? 0) === 0;
  const ask = got !== undefined && !refuse && !high;
  const judgeCalls = controls.all('judge');
  const expectJudge = ask && input.canJudge;
  check(judgeCalls.length <= (expectJudge ? 1 : 0), `the relevance call is made ${expectJudge ? 'at most once' : 'never'}, got ${judgeCalls.length}`);
  for (const call of judgeCalls) {
    const ids = (call.input as { passages: Passage[] }).passages.map((p) => p.id);
    check(JSON.stringify(ids) === JSON.stringify(relevant.map((p) => p.id)), `the relevance call sees every retrieved passage: ${relevant.map((p) => p.id).join(',')}, got ${ids.join(',')}`);
  }
  const judged = events.find((e) => e.type === 'xstate.done.actor.judge') as Done<JudgeOutput> | undefined;
  const judgeFailed = events.some((e) => e.type === 'xstate.error.actor.judge');
  const verdict = judged?.output;
  const judgedNone = verdict?.ok === true && verdict.keep.length === 0;
  const sent = verdict?.ok === true ? relevant.filter((p) => verdict.keep.includes(p.id)) : relevant;
  const lowConfidence = ask && (!input.canJudge || judgeFailed || (verdict !== undefined && !verdict.ok));
  // The model is called once on the answer band, and on the ask band unless the verdict refused.
  const mayGenerate = got !== undefined && !refuse && (high || !input.canJudge || judgeFailed || (verdict !== undefined && !judgedNone));
  const calls = controls.all('generate');
  check(calls.length <= (mayGenerate ? 1 : 0), `the model is called ${mayGenerate ? 'at most once' : 'never'} (band ${refuse ? 'refuse' : high ? 'answer' : 'ask'}), got ${calls.length}`);
  for (const call of calls) {
    const req = (call.input as { request: { model: string; documents?: Array<{ id: string }>; messages: Array<{ content: string }>; purpose: string } }).request;
    check(req.model === input.settings.model && req.purpose === 'chat', `the model call uses ${input.settings.model} for chat, got ${req.model}/${req.purpose}`);
    check(JSON.stringify(req.documents?.map((d) => d.id)) === JSON.stringify(sent.map((p) => p.id)), `only the kept passages are sent: ${sent.map((p) => p.id).join(',')}`);
    check(req.messages[req.messages.length - 1]?.content === input.question, 'the question is the last message');
    const history = input.history.slice(input.history.length - Math.min(input.history.length, input.settings.historyTurns * 2));
    check(JSON.stringify(req.messages.slice(0, -1)) === JSON.stringify(history), `the last ${input.settings.historyTurns} exchange(s) of history go with the question`);
  }
  if (!end || snapshot.status !== 'done') return;
  const out = snapshot.output as { state: string; answer: string; cited: Passage[]; flagged: string[]; error?: string; confidence: string; notice?: string; removedMarks: number; band?: string; verdict?: JudgeOutput };
  if (cancelled) check(out.error === 'cancelled', `a cancelled question says so, got error ${out.error}`);
  const generated = (events.find((e) => e.type === 'xstate.done.actor.generate') as Done<LlmCallOutput> | undefined)?.output;
  const refusal = OUT_OF_SCOPE_ANSWERS[input.lang];
  let expected: { state: string; answer?: string; confidence?: string; cited?: string[]; flagged?: string[]; removed?: number };
  if (cancelled || events.some((e) => e.type === 'xstate.error.actor.retrieve' || e.type === 'xstate.error.actor.generate') || got === undefined) expected = { state: 'failed' };
  else if (refuse || (ask && input.canJudge && judgedNone)) expected = { state: 'outOfScope', answer: refusal, cited: [], confidence: 'high' };
  else if (!generated?.ok) expected = { state: 'failed' };
  else if (generated.result.text === OUT_OF_SCOPE_ANSWER) expected = { state: 'outOfScope', answer: refusal, cited: [] };
  else {
    const marks = [...generated.result.text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    const valid = marks.filter((n) => n >= 1 && n <= sent.length);
    // One source per section, in order of first mark, then those only cited natively.
    const sections: string[] = [];
    const firstOf = new Map<string, string>();
    const add = (p: Passage) => {
      const key = `${p.path}#${p.anchor}`;
      if (!sections.includes(key)) { sections.push(key); firstOf.set(key, p.id); }
    };
    for (const n of valid) add(sent[n - 1]!);
    const named = (generated.result.citations ?? []).map((c) => c.sourceId);
    for (const id of named) { const p = sent.find((q) => q.id === id); if (p) add(p); }
    // Mark n names passage n sent; it becomes the place of that passage's section among the sources.
    const answer = generated.result.text.replace(/\s?\[(\d+)\]/g, (whole, n: string) => {
      const p = sent[Number(n) - 1];
      return p ? `${whole.startsWith('[') ? '' : whole[0]}[${sections.indexOf(`${p.path}#${p.anchor}`) + 1}]` : '';
    }).trim();
    expected = {
      state: 'answered',
      answer,
      confidence: lowConfidence ? 'low' : 'high',
      cited: sections.map((k) => firstOf.get(k)!),
      flagged: [...new Set(named.filter((id) => !sent.some((p) => p.id === id)))],
      removed: marks.length - valid.length,
    };
    // With the claim check, each sentence must be supported by its passage before it is shown.
    const verifyCalls = controls.all('verify');
    const expectVerify = input.canVerify === true && answer !== '';
    check(verifyCalls.length <= (expectVerify ? 1 : 0), `the claim check runs ${expectVerify ? 'at most once' : 'never'}, got ${verifyCalls.length}`);
    const sentences = answer.split(/(?<=[.!?])\s+/).filter((x) => x.trim() !== '');
    for (const call of verifyCalls) {
      const claims = (call.input as { claims: Array<{ text: string }> }).claims.map((c) => c.text);
      check(JSON.stringify(claims) === JSON.stringify(sentences), `the claim check sees the answer's sentences ${JSON.stringify(sentences)}, got ${JSON.stringify(claims)}`);
    }
    const checked = (events.find((e) => e.type === 'xstate.done.actor.verify') as Done<VerifyOutput> | undefined)?.output;
    const checkFailed = events.some((e) => e.type === 'xstate.error.actor.verify');
    if (expectVerify && checked?.ok === true) {
      const kept = sentences.filter((_, i) => checked.supported[i] === true);
      if (kept.length === 0) expected = { state: 'outOfScope', answer: refusal, cited: [], confidence: 'low' };
      else {
        const text = kept.join(' ');
        const oldCited = expected.cited!;
        const order: string[] = [];
        for (const m of text.matchAll(/\[(\d+)\]/g)) { const id = oldCited[Number(m[1]) - 1]!; if (!order.includes(id)) order.push(id); }
        expected = { ...expected, answer: order.length > 0 ? text.replace(/\[(\d+)\]/g, (_, n: string) => `[${order.indexOf(oldCited[Number(n) - 1]!) + 1}]`) : text, cited: order.length > 0 ? order : oldCited };
      }
    } else if (expectVerify && (checkFailed || checked?.ok === false)) expected = { ...expected, confidence: 'low' };
  }
  check(out.state === expected.state, `the question ends ${expected.state}, got ${out.state}`);
  const band = got === undefined ? undefined : refuse ? 'refuse' : high ? 'answer' : 'ask';
  if (!cancelled && got !== undefined) check(out.band === band, `band ${band}, got ${out.band}`);
  // The relevance call's verdict is reported (metrics count verdicts): as returned, or why there was none.
  if (judged) check(JSON.stringify(out.verdict) === JSON.stringify(judged.output), `the verdict is kept, got ${JSON.stringify(out.verdict)}`);
  else if (judgeFailed) check(out.verdict?.ok === false, `a failed relevance call is a verdict-less one, got ${JSON.stringify(out.verdict)}`);
  else check(out.verdict === undefined, `no relevance call, no verdict, got ${JSON.stringify(out.verdict)}`);
  if (expected.state === 'failed' && !cancelled) {
    const crash = events.find((e) => e.type.startsWith('xstate.error.actor.') && e.type !== 'xstate.error.actor.judge') as (EventObject & { error: Error }) | undefined;
    const why = crash ? crash.error.message : generated && !generated.ok ? `${generated.error.kind}: ${generated.error.message}` : undefined;
    check(out.error === why, `a failure says why (${why}), got ${out.error}`);
  }
  if (expected.answer !== undefined) check(out.answer === expected.answer, `answer ${JSON.stringify(expected.answer)}, got ${JSON.stringify(out.answer)}`);
  if (expected.confidence !== undefined) check(out.confidence === expected.confidence, `confidence ${expected.confidence}, got ${out.confidence}`);
  if (expected.state === 'answered') {
    const notice = expected.confidence === 'low' ? LOW_CONFIDENCE_NOTICES[input.lang] : undefined;
    check(out.notice === notice, `notice ${JSON.stringify(notice)}, got ${JSON.stringify(out.notice)}`);
    check(out.removedMarks === expected.removed, `${expected.removed} mark(s) without a source removed, got ${out.removedMarks}`);
    const left = [...out.answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    check(left.every((n) => n >= 1 && n <= out.cited.length), `every mark left names a listed source (${left.join(',')} of ${out.cited.length})`);
  }
  if (expected.cited) check(JSON.stringify(out.cited.map((p) => p.id)) === JSON.stringify(expected.cited), `cites ${expected.cited.join(',')}, got ${out.cited.map((p) => p.id).join(',')}`);
  if (expected.flagged) check(JSON.stringify(out.flagged) === JSON.stringify(expected.flagged), `flags ${expected.flagged.join(',')}`);
  seen?.({ ...expected, cancelled, passages: new Map((got?.passages ?? []).map((p) => [p.id, p])) });
}

export const variants: Array<{ name: string; input: () => ChatInput }> = [
  { name: 'with a provider (asks)', input: () => input(true) },
  { name: 'offline (no relevance call)', input: () => input(false) },
  { name: 'with a provider, claims checked', input: () => input(true, true) },
  { name: 'three exchanges of history, two kept', input: () => withHistory(true, 2) },
  { name: 'history off, offline', input: () => withHistory(false, 0) },
];

export const samples = {
  'xstate.done.actor.retrieve': [
    { output: retrieved([passage('p1', 0.8), passage('p2', 0.1)], { inScope: 0.9 }) },
    { output: retrieved([passage('p3', 0.3)], { inScope: 0.3 }) },
    // On the bounds exactly (score 0.2 passes, probability 0.5 is confident), with a passage under the threshold (sent too).
    { output: retrieved([passage('p3', 0.2), passage('p8', 0.19, 'autre')], { inScope: 0.5 }) },
    { output: retrieved([passage('p1', 0.5), passage('p9', 0.3, 'autre'), passage('p2', 0.1)], { inScope: 0.49 }) },
    // The probability decides "high", not the score; the score decides refusals.
    { output: retrieved([passage('p1', 0.9)], { inScope: 0.2 }) },
    { output: retrieved([passage('p3', 0.25)], { inScope: 0.95 }) },
    { output: retrieved([passage('p8', 0.15, 'autre')], { inScope: 0.95 }) },
    // Most of the weight in unknown words refuses whatever the probability; the other cues only feed it.
    { output: retrieved([passage('p1', 0.9)], { inScope: 0.9, unseenShare: 0.75 }) },
    { output: retrieved([passage('p4', 0.9)], { inScope: 0.1, unknownNames: ['lyon'] }) },
    // Live data (« demain »): refused whatever the score and probability.
    { output: retrieved([passage('p1', 0.9)], { inScope: 0.95, liveData: true }) },
    // The question's words scattered over passages that never hold two together: refused.
    { output: retrieved([passage('p1', 0.5)], { inScope: 0.9, scope: { contentWords: 3, heldTogether: 1, unknownThings: [] } }) },
    // A short question about a name the corpus never uses, two words held together: refused
    // (three words held, or a longer question: test/docs/scope.test.ts).
    { output: retrieved([passage('p1', 0.6)], { inScope: 0.9, unknownNames: ['louvre'], scope: { contentWords: 3, heldTogether: 2, unknownThings: ['louvre'] } }) },
    // Two words held together while most of the weight is in two words the corpus never uses:
    // refused; a single unknown word (the asker's synonym) is not (test/docs/scope.test.ts).
    { output: retrieved([passage('p1', 0.6)], { inScope: 0.9, unseenShare: 0.6, scope: { contentWords: 4, heldTogether: 2, unknownThings: [], unseenWords: 2 } }) },
    { output: retrieved([passage('p1', 0.6)], { inScope: 0.9, unseenShare: 0.6, scope: { contentWords: 3, heldTogether: 2, unknownThings: [], unseenWords: 1 } }) },
    // A specific name the corpus knows but no retrieved passage holds, two words held: refused.
    { output: retrieved([passage('p1', 0.6)], { inScope: 0.9, namesNotRetrieved: ['android'], scope: { contentWords: 5, heldTogether: 2, unknownThings: [], absentNames: ['android'] } }) },
    // A named thing no passage mentions: never "high", whatever the probability.
    { output: retrieved([passage('p1', 0.9), passage('p2', 0.4, 'autre')], { inScope: 0.95, scope: { contentWords: 3, heldTogether: 3, unknownThings: ['RGAA 5'] } }) },
    { output: retrieved([]) },
  ],
  'xstate.error.actor.retrieve': [{ error: new Error('index unreadable') }],
  'xstate.done.actor.judge': [{ output: { ok: true, keep: ['p3'], ms: 5 } }, { output: { ok: true, keep: [], ms: 5 } }, { output: { ok: false, reason: 'timeout', ms: 4000 } }],
  'xstate.error.actor.judge': [{ error: new Error('judge bug') }],
  'xstate.done.actor.generate': [
    { output: generated('Vingt ans [1] [7].', [{ sourceId: 'p1' }, { sourceId: 'invented' }]) },
    // Marks in another order than the passages: renumbered in order of first use; two sentences,
    // so the claim check may keep one.
    { output: generated('Dix ans [2]. Puis vingt [1][9].', []) },
    { output: generated(OUT_OF_SCOPE_ANSWER, []) },
    { output: { ok: false, attempts: 1, model: 'm', error: { kind: 'server', message: 'HTTP 503' } } satisfies LlmCallOutput },
  ],
  'xstate.error.actor.generate': [{ error: new Error('provider bug') }],
  'xstate.done.actor.verify': [
    { output: { ok: true, supported: [true, false], ms: 3 } },
    { output: { ok: true, supported: [false, false], ms: 3 } },
    { output: { ok: false, reason: 'malformed claim check: invalid JSON', ms: 3 } },
  ],
  'xstate.error.actor.verify': [{ error: new Error('verify bug') }],
  'chat.cancel': [{}],
};

export const project = (s: AnyMachineSnapshot): unknown => {
  const c = s.context as ChatContext;
  return { value: s.value, passages: c.passages.map((p) => p.id), cited: c.cited.map((p) => p.id), flagged: c.flagged, answer: c.answer, final: c.final, band: c.band, confidence: c.confidence, notice: c.notice };
};
