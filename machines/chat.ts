import { assign, fromPromise, setup } from 'xstate';
import type { LlmCallInput, LlmCallOutput } from './llmCall.js';
import type { Citation, GenerateResult } from './llmPort.js';
import type { ChatSettings, ChatTurn, Passage } from './chatContract.js';
import { CHAT_SYSTEM_PROMPT, LOW_CONFIDENCE_NOTICES, OUT_OF_SCOPE_ANSWERS, type AnswerLang } from '../prompts/docs/chatPrompt.js';

/**
 * One question to the docs assistant, as steps (docs/docs-assistant.md#one-question-step-by-step-the-rules-the-code-relies-on):
 * retrieving → guarding → (asking →) generating → checkingCitations → (verifying →) answered | outOfScope | failed.
 *
 * The guard (docs/docs-assistant.md § Confidence) refuses on the lexical score and answers "high"
 * on a learned probability:
 * - under `settings.threshold` (the best passage's score), or when most of the question's weight
 *   is in words the corpus never uses, the question is out of scope and no model is called;
 * - when `signals.inScope`, the calibrated probability that the documentation answers the
 *   question (actors/retrieval/confidence.ts, over the lexical cues below: unknown words and
 *   names, live data…), reaches `settings.confident`, it is answered with confidence "high" (the
 *   cues are features, not rules of their own: kept as vetoes next to it they brought no gain
 *   that held across the cross-validation splits, bench/journal/2026-12-docs-assistant.md
 *   § Fifth round);
 * - in between it is "ask": with a provider (`canJudge`), one short relevance call (`judge`)
 *   says which passages answer the question; none → out of scope, some → answered from those only
 *   ("high"); a failed, late or malformed verdict → answered with confidence "low". Offline there
 *   is no call: answered with confidence "low" and a notice that says so.
 * Checking citations renumbers the `[n]` marks in order of first use, so mark n is source n of the
 * answer's list; marks pointing at no passage are removed and counted. No I/O here: the actors are
 * provided at wiring time (actors/docs/assistant.ts).
 */

/** Lexical cues about the question as a whole (actors/retrieval/relevance.ts computes them). */
export interface RelevanceSignals {
  /** IDF-weighted share of the question's words that the corpus never uses (0–1). */
  unseenShare: number;
  /** Capitalised names in the question that the corpus never uses ("Lyon", "Netflix"). */
  unknownNames: string[];
  /** Capitalised names in the question that none of the retrieved passages holds ("CNIL" next to a Faker IBAN). */
  namesNotRetrieved: string[];
  /** The question asks about the world now ("tomorrow", "aujourd'hui"): docs are not a live source. */
  liveData: boolean;
  /**
   * Probability (0–1) that the documentation answers the question: a logistic regression over
   * these cues and the passages' scores (actors/retrieval/confidence.ts). The band reads this.
   */
  inScope: number;
  /** What the corpus carries of the question as a whole (assistant.ts computes it; absent: not measured). */
  scope?: ScopeSignals;
}

/**
 * Whether the corpus carries the question: its words together, and the things it names.
 * - `contentWords`: the question's informative words (stop words dropped);
 * - `heldTogether`: the most of them one retrieved passage holds (after the dictionaries'
 *   expansion). Two words or more, none held together: the words are in the corpus, scattered,
 *   the question is not (« Who won the 2022 World Cup? » — « 2022 » in a declaration's date,
 *   « world » on an MCP page): refused, no model called.
 * - `unknownThings`: what the question names (« RGAA 5 », `claude_desktop_config.json`, a version,
 *   an amount, a capitalised name) that no passage mentions: never answered "high".
 * - `absentNames`: the capitalised names of the question (« Eiffel », « Android ») that no retrieved
 *   passage holds and that the corpus never or seldom uses (a specific name, not its own topic
 *   such as « MCP »): what the question is about, missing from what was found. None when the
 *   question also names one of the corpus's own subjects that the passages hold (« RGAA »).
 * - `unseenWords`: how many of the question's informative words the corpus never uses.
 * A compound's parts (« Wi-Fi ») count as one word in `contentWords`, `heldTogether`, `unseenWords`.
 */
interface ScopeSignals {
  contentWords: number;
  heldTogether: number;
  unknownThings: string[];
  absentNames?: string[];
  unseenWords?: number;
}

export interface Retrieved {
  passages: Passage[];
  signals: RelevanceSignals;
}

/** The relevance call's verdict: passage ids that answer, or why there is no verdict. */
export type JudgeOutput = { ok: true; keep: string[]; ms: number } | { ok: false; reason: string; ms: number };

export interface JudgeInput {
  question: string;
  passages: Passage[];
}

/** One sentence of an answer, with the `[n]` marks it carries (numbers of the answer's sources). */
export interface Claim {
  text: string;
  marks: number[];
}

export interface VerifyInput {
  question: string;
  claims: Claim[];
  /** The answer's sources: mark n names passages[n - 1]. */
  passages: Passage[];
}

/** The claim check's verdict: per claim, whether its passages support it; or why there is none. */
export type VerifyOutput = { ok: true; supported: boolean[]; ms: number } | { ok: false; reason: string; ms: number };

/** Over this share of unseen weight the question is about something the docs never mention. */
export const REFUSE_UNSEEN_SHARE = 0.75;
/** Over this share of unseen weight a question is in doubt: a feature of the confidence model, not a veto (bench/rag-quality.ts counts it). */
export const DOUBT_UNSEEN_SHARE = 0.5;

type Confidence = 'high' | 'low';
type Band = 'refuse' | 'ask' | 'answer';

export interface ChatInput {
  question: string;
  history: ChatTurn[];
  settings: ChatSettings;
  /** llmCall resilience knobs (from LLM_* configuration). */
  call: Omit<LlmCallInput, 'request'>;
  /** Language of the question: the refusal and the notice are written in it. */
  lang: AnswerLang;
  /** A provider that can make the relevance call is configured (false offline). */
  canJudge: boolean;
  /** Each sentence of a generated answer is checked against its cited passage before it is shown. */
  canVerify?: boolean;
}

export interface ChatContext extends ChatInput {
  passages: Passage[];
  signals: RelevanceSignals;
  band: Band | undefined;
  confidence: Confidence;
  verdict: JudgeOutput | undefined;
  result: GenerateResult | undefined;
  /** Passages actually cited, in order of first mark. */
  cited: Passage[];
  flagged: string[];
  /** `[n]` marks removed because they pointed at no passage sent. */
  removedMarks: number;
  answer: string;
  notice: string | undefined;
  error: string | undefined;
  /** The claim check's verdict, when one was asked. */
  verification: VerifyOutput | undefined;
  /** Sentences removed because the passage they cite does not support them (the inspector shows them). */
  droppedClaims: string[];
  /** Which final state was reached (set on entry of each final state). */
  final: ChatState | undefined;
}

type ChatState = 'answered' | 'outOfScope' | 'failed';

export interface ChatOutput {
  state: ChatState;
  answer: string;
  confidence: Confidence;
  band: Band | undefined;
  notice: string | undefined;
  passages: Passage[];
  cited: Passage[];
  flagged: string[];
  removedMarks: number;
  verdict: JudgeOutput | undefined;
  result: GenerateResult | undefined;
  error: string | undefined;
  verification: VerifyOutput | undefined;
  droppedClaims: string[];
}

/** The llmCall request for a question: pure, so tests can read what the model would get. */
function buildLlmRequest(ctx: Pick<ChatContext, 'question' | 'history' | 'settings' | 'passages'>): LlmCallInput['request'] {
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

const MARKS = /\s?\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g;

/**
 * Citations that match. `[n]` in `text` names the n-th passage sent; the answer's sources are the
 * sections of those passages in order of first mark, then those cited natively (Claude) without a mark; marks are
 * renumbered to their source's place; a mark naming no passage is removed (`removedMarks`).
 * `flagged` lists native citations naming no passage sent.
 */
function linkCitations(text: string, citations: Citation[] | undefined, passages: Passage[]): { answer: string; cited: Passage[]; flagged: string[]; removedMarks: number } {
  const cited: Passage[] = [];
  let removedMarks = 0;
  // Two passages of one section are one source for the reader (one link, one number).
  const place = (p: Passage): number => {
    let i = cited.findIndex((c) => c.path === p.path && c.anchor === p.anchor);
    if (i < 0) i = cited.push(p) - 1;
    return i + 1;
  };
  const answer = text
    .replace(MARKS, (whole, list: string) => {
      const lead = whole.startsWith(' ') || whole.startsWith('\n') ? whole[0]! : '';
      const kept: number[] = [];
      for (const n of list.split(',').map((x) => Number(x.trim()))) {
        const p = n >= 1 ? passages[n - 1] : undefined;
        if (!p) {
          removedMarks++;
          continue;
        }
        const k = place(p);
        if (!kept.includes(k)) kept.push(k);
      }
      return kept.length > 0 ? `${lead}${kept.map((k) => `[${k}]`).join('')}` : '';
    })
    .trim();
  const byId = new Map(passages.map((p) => [p.id, p]));
  const flagged: string[] = [];
  for (const c of citations ?? []) {
    const p = byId.get(c.sourceId);
    if (!p) {
      if (!flagged.includes(c.sourceId)) flagged.push(c.sourceId);
    } else place(p);
  }
  return { answer, cited, flagged, removedMarks };
}

/** A sentence ends at . ! ? followed by a space or at a line break; a list item or a line is one sentence. */
const CLAIM_END = /(?<=[.!?:])\s+(?=[^\s[])|\n+/;
const MARK = /\[(\d{1,3})\]/g;

/** « Vingt ans. [1] » → « Vingt ans [1]. »: a mark after a full stop belongs to the sentence it ends. */
const marksBeforeStops = (text: string): string =>
  text.replace(/([.!?])((?:[ \t]*\[\d{1,3}\])+)/g, (_, stop: string, marks: string) => ` ${marks.replace(/[ \t]+/g, '')}${stop}`).replace(/ {2,}\[/g, ' [');

/**
 * The answer's sentences with their marks. Marks written after the full stop (« Vingt ans. [1] »)
 * belong to the sentence before them.
 */
export function splitClaims(answer: string): Claim[] {
  const claims: Claim[] = [];
  for (const piece of marksBeforeStops(answer).split(CLAIM_END)) {
    const text = piece.trim();
    if (!text) continue;
    const marks = [...text.matchAll(MARK)].map((m) => Number(m[1]));
    if (text.replace(MARK, '').trim() === '' && claims.length > 0) {
      const last = claims[claims.length - 1]!;
      claims[claims.length - 1] = { text: `${last.text} ${text}`, marks: [...new Set([...last.marks, ...marks])] };
      continue;
    }
    claims.push({ text, marks: [...new Set(marks)] });
  }
  return claims;
}

/**
 * The answer without its unsupported claims, laid out as the model wrote it (lines, lists), and
 * the dropped claims' text.
 */
function keepSupported(answer: string, claims: readonly Claim[], supported: readonly boolean[]): { answer: string; dropped: string[] } {
  const dropped = claims.filter((_, i) => !supported[i]).map((c) => c.text);
  let kept = marksBeforeStops(answer);
  let from = 0;
  let located = true;
  claims.forEach((c, i) => {
    const at = kept.indexOf(c.text, from);
    if (at < 0) located = false;
    else if (supported[i]) from = at + c.text.length;
    else kept = kept.slice(0, at) + kept.slice(at + c.text.length);
  });
  // A claim not found as written (a mark alone on its line, merged): rebuild from the kept claims.
  if (!located) kept = claims.filter((_, i) => supported[i]).map((c) => c.text).join('\n');
  return { answer: kept.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').replace(/[ \t]{2,}/g, ' ').trim(), dropped };
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const norm = (s: string): string => s.replace(/[«»"“”'’\s.]/g, '').toLowerCase();
const REFUSALS = new Set(Object.values(OUT_OF_SCOPE_ANSWERS).map(norm));

/** The model answered with a refusal sentence (either language). */
function declined(text: string): boolean {
  return REFUSALS.has(norm(text));
}

/**
 * Two informative words or more, and no retrieved passage holds two of them together; or no more
 * than two together while most of the question's weight is in words the corpus never uses, two of
 * them at least: two ordinary words meeting in a passage (« make » and « starter ») are chance when
 * the question's own subject (« sourdough », « scratch ») is nowhere in the docs. One unknown word
 * is often the asker's synonym of the docs' own (« lancer » for « démarrer »), not another subject.
 */
const scatteredRule = { held: 1, heldWhenUnseen: 2, unseenShare: 0.55, unseenWords: 2 };
const scattered = (s: RelevanceSignals): boolean =>
  s.scope !== undefined &&
  s.scope.contentWords >= 2 &&
  (s.scope.heldTogether <= scatteredRule.held ||
    (s.scope.heldTogether <= scatteredRule.heldWhenUnseen && s.unseenShare >= scatteredRule.unseenShare && (s.scope.unseenWords ?? 0) >= scatteredRule.unseenWords));

/**
 * A short question (at most seven informative words) naming something the corpus never uses
 * (« Louvre », « Verizon »), or seldom uses and none of the retrieved passages holds (`absentNames`:
 * « Android », « Eiffel »), of which at most two words meet in one passage: the question is about
 * that name, and two ordinary words meeting in a passage (« time » and « close » on a transport
 * page) are chance, not a topic. In a longer question an unknown product is context (« our
 * self-hosted GitLab »), and an answerable short one still shares three words with the page that
 * answers it (docs/docs-assistant.md § Scope).
 */
const namedElsewhereRule = { held: 3, maxWords: 7 };
const namedElsewhere = (s: RelevanceSignals): boolean =>
  s.scope !== undefined &&
  (s.scope.absentNames ?? s.unknownNames).length > 0 &&
  s.scope.heldTogether < namedElsewhereRule.held &&
  s.scope.contentWords <= namedElsewhereRule.maxWords;

const bestScore = (passages: Passage[]): number => passages.reduce((m, p) => Math.max(m, p.score), 0);

export const chatMachine = setup({
  types: {
    input: {} as ChatInput,
    context: {} as ChatContext,
    output: {} as ChatOutput,
    events: {} as { type: 'chat.cancel' },
  },
  actors: {
    retrieve: fromPromise<Retrieved, { question: string; k: number }>(async () => {
      throw new Error('chat: the retrieve actor is not provided');
    }),
    judge: fromPromise<JudgeOutput, JudgeInput>(async () => {
      throw new Error('chat: the judge actor is not provided');
    }),
    generate: fromPromise<LlmCallOutput, LlmCallInput>(async () => {
      throw new Error('chat: the generate actor is not provided');
    }),
    verify: fromPromise<VerifyOutput, VerifyInput>(async () => {
      throw new Error('chat: the verify actor is not provided');
    }),
  },
  guards: {
    // Documentation is not a live source: a question about the world now (« demain », « tomorrow »)
    // is refused whatever its words match (it fired on 0 of 1,044 answerable tuning questions and
    // 19 of 432 out-of-scope ones; the example weather server matched « weather … tomorrow »).
    underLowBound: ({ context }) => bestScore(context.passages) < context.settings.threshold || context.signals.unseenShare >= REFUSE_UNSEEN_SHARE || scattered(context.signals) || namedElsewhere(context.signals) || context.signals.liveData,
    overHighBound: ({ context }) => context.signals.inScope >= context.settings.confident && (context.signals.scope?.unknownThings.length ?? 0) === 0,
    canJudge: ({ context }) => context.canJudge,
    judgedNone: (_, v: JudgeOutput) => v.ok && v.keep.length === 0,
    judgedSome: (_, v: JudgeOutput) => v.ok && v.keep.length > 0,
    callSucceeded: (_, output: LlmCallOutput) => output.ok,
    modelDeclined: ({ context }) => declined(context.answer),
    canVerify: ({ context }) => context.canVerify === true && context.answer.trim() !== '',
    verifiedNone: (_, v: VerifyOutput) => v.ok && !v.supported.some(Boolean),
    verifiedSome: (_, v: VerifyOutput) => v.ok,
  },
  actions: {
    keepRetrieved: assign((_, r: Retrieved) => ({ passages: r.passages, signals: r.signals })),
    // A refusal decided by the guard or by the relevance call is a confident one.
    bandRefuse: assign({ band: 'refuse' as const, confidence: 'high' as const }),
    confidentRefusal: assign({ confidence: 'high' as const }),
    bandAnswer: assign({ band: 'answer' as const, confidence: 'high' as const }),
    bandAsk: assign({ band: 'ask' as const, confidence: 'low' as const }),
    keepVerdict: assign({ verdict: (_, v: JudgeOutput) => v }),
    keepJudged: assign({
      passages: ({ context }, v: JudgeOutput) => (v.ok ? context.passages.filter((p) => v.keep.includes(p.id)) : context.passages),
      confidence: 'high' as const,
    }),
    noteLowConfidence: assign({ notice: ({ context }) => LOW_CONFIDENCE_NOTICES[context.lang] }),
    answerOutOfScope: assign({ answer: ({ context }) => OUT_OF_SCOPE_ANSWERS[context.lang], cited: () => [], notice: () => undefined }),
    keepResult: assign({ result: (_, output: LlmCallOutput) => (output.ok ? output.result : undefined) }),
    keepCallError: assign({ error: (_, output: LlmCallOutput) => (output.ok ? undefined : `${output.error.kind}: ${output.error.message}`) }),
    keepCancelled: assign({ error: () => 'cancelled' }),
    keepVerification: assign({ verification: (_, v: VerifyOutput) => v }),
    // The kept sentences keep their marks; sources are renumbered over what is left, so a source
    // cited only by a removed sentence goes with it.
    keepSupported: assign(({ context }, v: VerifyOutput) => {
      if (!v.ok) return {};
      const { answer, dropped } = keepSupported(context.answer, splitClaims(context.answer), v.supported);
      const relinked = linkCitations(answer, undefined, context.cited);
      return { answer: relinked.answer, cited: relinked.cited.length > 0 ? relinked.cited : context.cited, droppedClaims: dropped };
    }),
    // No verdict: the sentences are shown, not vouched for.
    unverified: assign({ confidence: 'low' as const, notice: ({ context }) => LOW_CONFIDENCE_NOTICES[context.lang] }),
    checkCitations: assign(({ context }) => {
      const { answer, cited, flagged, removedMarks } = linkCitations(context.result?.text ?? '', context.result?.citations, context.passages);
      return { cited, flagged, removedMarks, answer };
    }),
  },
}).createMachine({
  id: 'chat',
  description: 'One question to the docs assistant: retrieve passages, decide whether to answer, answer with citations, check them.',
  context: ({ input }) => ({
    ...input,
    passages: [],
    signals: { unseenShare: 0, unknownNames: [], namesNotRetrieved: [], liveData: false, inScope: 0 },
    band: undefined,
    confidence: 'low',
    verdict: undefined,
    result: undefined,
    cited: [],
    flagged: [],
    removedMarks: 0,
    answer: '',
    notice: undefined,
    error: undefined,
    verification: undefined,
    droppedClaims: [],
    final: undefined,
  }),
  initial: 'retrieving',
  on: { 'chat.cancel': { target: '.failed', actions: 'keepCancelled' } },
  states: {
    retrieving: {
      description: 'Searches the documentation for the passages closest to the question.',
      invoke: {
        id: 'retrieve',
        src: 'retrieve',
        input: ({ context }) => ({ question: context.question, k: context.settings.k }),
        onDone: { target: 'guarding', actions: { type: 'keepRetrieved', params: ({ event }) => event.output } },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => describeError(event.error) }) },
      },
    },
    guarding: {
      description: 'Decides from the retrieval scores: refuse, answer, or ask the judge first.',
      always: [
        { guard: 'underLowBound', target: 'outOfScope', actions: 'bandRefuse' },
        // Past the guard every retrieved passage goes on, in rank order, those under the low bound
        // too: the learned ranking put them there, and the offline answer cited a relevant source
        // more often with them on every left-out labelled set
        // (bench/journal/2026-12-docs-assistant.md § Sixth round).
        { guard: 'overHighBound', target: 'generating', actions: 'bandAnswer' },
        { guard: 'canJudge', target: 'asking', actions: 'bandAsk' },
        { target: 'generating', actions: ['bandAsk', 'noteLowConfidence'] },
      ],
    },
    asking: {
      description: 'Waits for the judge model to say which passages answer the question, if any.',
      invoke: {
        id: 'judge',
        src: 'judge',
        input: ({ context }) => ({ question: context.question, passages: context.passages }),
        onDone: [
          {
            guard: { type: 'judgedNone', params: ({ event }) => event.output },
            target: 'outOfScope',
            actions: [{ type: 'keepVerdict', params: ({ event }) => event.output }, 'confidentRefusal'],
          },
          {
            guard: { type: 'judgedSome', params: ({ event }) => event.output },
            target: 'generating',
            actions: [
              { type: 'keepVerdict', params: ({ event }) => event.output },
              { type: 'keepJudged', params: ({ event }) => event.output },
            ],
          },
          { target: 'generating', actions: [{ type: 'keepVerdict', params: ({ event }) => event.output }, 'noteLowConfidence'] },
        ],
        // A judge that throws is a judge without a verdict: answer, with low confidence.
        onError: { target: 'generating', actions: [assign({ verdict: ({ event }) => ({ ok: false as const, reason: describeError(event.error), ms: 0 }) }), 'noteLowConfidence'] },
      },
    },
    generating: {
      description: 'Waits for the model to write the answer from the kept passages.',
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
      description: 'Checks that the answer cites passages it was given; a declined answer is the refusal.',
      entry: 'checkCitations',
      always: [{ guard: 'modelDeclined', target: 'outOfScope' }, { guard: 'canVerify', target: 'verifying' }, { target: 'answered' }],
    },
    // Each sentence against the passage its [n] cites, before anything is shown: unsupported ones
    // are removed, none supported is the refusal, no verdict (failed, late, malformed) is "low".
    verifying: {
      description: 'Waits for each sentence to be checked against the passage it cites; unsupported ones are removed.',
      invoke: {
        id: 'verify',
        src: 'verify',
        input: ({ context }) => ({ question: context.question, claims: splitClaims(context.answer), passages: context.cited.length > 0 ? context.cited : context.passages }),
        onDone: [
          {
            guard: { type: 'verifiedNone', params: ({ event }) => event.output },
            target: 'outOfScope',
            actions: [{ type: 'keepVerification', params: ({ event }) => event.output }, assign({ droppedClaims: ({ context }) => splitClaims(context.answer).map((c) => c.text), confidence: 'low' as const })],
          },
          {
            guard: { type: 'verifiedSome', params: ({ event }) => event.output },
            target: 'answered',
            actions: [{ type: 'keepVerification', params: ({ event }) => event.output }, { type: 'keepSupported', params: ({ event }) => event.output }],
          },
          { target: 'answered', actions: [{ type: 'keepVerification', params: ({ event }) => event.output }, 'unverified'] },
        ],
        onError: { target: 'answered', actions: [assign({ verification: ({ event }) => ({ ok: false as const, reason: describeError(event.error), ms: 0 }) }), 'unverified'] },
      },
    },
    answered: { type: 'final', description: 'The answer is ready, with its citations and confidence.', entry: assign({ final: 'answered' as const }) },
    outOfScope: { type: 'final', description: 'The documentation does not answer the question: the refusal is sent.', entry: ['answerOutOfScope', assign({ final: 'outOfScope' as const })] },
    failed: { type: 'final', description: 'Retrieval or the model broke, or the user cancelled: an error is sent.', entry: assign({ final: 'failed' as const }) },
  },
  output: ({ context }): ChatOutput => ({
    state: context.final ?? 'failed',
    answer: context.answer,
    confidence: context.confidence,
    band: context.band,
    notice: context.final === 'answered' ? context.notice : undefined,
    passages: context.passages,
    cited: context.cited,
    flagged: context.flagged,
    removedMarks: context.removedMarks,
    verdict: context.verdict,
    result: context.result,
    error: context.error,
    verification: context.verification,
    droppedClaims: context.droppedClaims,
  }),
});
