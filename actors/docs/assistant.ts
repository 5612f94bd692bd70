import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createActor, fromPromise, type AnyActorRef, type AnyStateMachine, type InspectionEvent } from 'xstate';
import { beforeEffectLeaves } from '../../core/journal/durable.js';
import type { CoreConfig } from '../../core/config/schema.js';
import type { LlmConfig } from '../llm/llmConfig.js';
import type { DocsConfig } from './docsConfig.js';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import type { Runtime } from '../../core/runtime.js';
import { type ChatInput, type ChatOutput, type JudgeInput, type JudgeOutput, type Retrieved, type VerifyInput, type VerifyOutput } from '../../machines/chat.js';
import { checkClaims, type ClaimCheckDeps } from './claimCheck.js';
import type { LlmCallInput, LlmCallOutput } from '../../machines/llmCall.js';
import { runLlmCall } from '../llm/llmWiring.js';
import { registerOfflineResponder } from '../llm/offline.js';
import type { ProviderRegistry } from '../llm/registry.js';
import { surfaceProvider } from '../llm/surfaceEndpoints.js';
import type { LlmProvider } from '../../machines/llmPort.js';
import { createGeminiEmbedder, createOpenAiEmbedder, type Embedder } from '../retrieval/embeddings.js';
import { analyzeQuery, detectLang } from '../retrieval/analyze.js';
import { namedThings, SPECIFIC_NAME, wordGroups } from '../retrieval/scope.js';
import { documentMarkdown } from '../retrieval/ingest.js';
import { questionSignals } from '../retrieval/confidence.js';
import { capitalisedNames } from '../retrieval/relevance.js';
import { loadConfiguredLexicons, type LexiconLoad } from '../retrieval/lexicons/lexicon.js';
import { Retriever, type ScoredPassage, type SyncReport } from '../retrieval/retriever.js';
import type { GenerateResult } from '../../machines/llmPort.js';
import { judgeRelevance } from './relevanceCall.js';
import type { ChatAnswer, ChatSettings, DocMeta, DocsAssistant, Passage, SourceRef } from '../../machines/chatContract.js';
import { extractiveAnswer } from './offlineAnswer.js';
import { wireChat } from './docsWiring.js';

/** The offline provider answers chat questions extractively from the passages it is sent. */
registerOfflineResponder('chat', extractiveAnswer);

export const FAILED_ANSWERS = {
  fr: 'La réponse n’a pas pu être produite pour le moment. Réessayez dans un instant.',
  en: 'The answer could not be produced just now. Try again in a moment.',
} as const;

export type AssistantConfig = Pick<
  CoreConfig & LlmConfig & DocsConfig,
  | 'CORPUS_DIR' | 'DATA_DIR' | 'CHAT_PROVIDER' | 'CHAT_MODEL' | 'CHAT_BASE_URL' | 'CHAT_API_KEY' | 'CHAT_TOP_K' | 'CHAT_SCORE_THRESHOLD' | 'CHAT_SCORE_CONFIDENT' | 'CHAT_TEMPERATURE'
  | 'CHAT_RELEVANCE_MODEL' | 'CHAT_RELEVANCE_TIMEOUT_MS' | 'CHAT_CLAIM_CHECK'
  | 'CHAT_MAX_TOKENS' | 'CHAT_HISTORY_TURNS' | 'EMBEDDINGS_PROVIDER' | 'EMBEDDINGS_MODEL' | 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'GEMINI_API_KEY' | 'GOOGLE_GEMINI_BASE_URL'
  | 'LLM_MAX_RETRIES' | 'LLM_ATTEMPT_TIMEOUT_MS' | 'LLM_BACKOFF_BASE_MS' | 'LLM_RETRY_AFTER_CAP_MS'
  | 'DOCS_LEXICONS' | 'PALABRE_CACHE_DIR'
>;

export interface DocsAssistantDeps {
  config: AssistantConfig;
  providers: ProviderRegistry;
  logger?: Logger;
  metrics?: Pick<Metrics, 'llmRetries'>;
  /** Called once per answer with its final state and duration (the surface counts them in /metrics). */
  onAnswer?: (answer: ChatAnswer, ms: number, question: string) => void;
  /** Called after each relevance call ("ask" band) with its latency, verdict and usage (/metrics). */
  onRelevanceCall?: (r: { ms: number; verdict: 'some' | 'none' | 'invalid'; result: GenerateResult | undefined }) => void;
  /** Called with the sentences the claim check removed from an answer (the admin's coverage page lists them). */
  onDroppedClaims?: (question: string, lang: 'fr' | 'en', sentences: string[]) => void;
  /** Called after each claim check with its latency and how many sentences it kept and removed (/metrics). */
  onClaimCheck?: NonNullable<ClaimCheckDeps['onCall']>;
  /** When given, every question runs as a `chat` conversation of the process's actor system. */
  runtime?: Runtime;
  /** Overrides the embedder built from configuration (tests). */
  embedder?: Embedder;
  /** Overrides the dictionaries loaded from DOCS_LEXICONS (tests, benches). */
  lexicons?: LexiconLoad;
  /** Keep the index in memory only (tests, `palabre ask --no-save`). */
  persist?: boolean;
  /**
   * The chart each question runs, given the actors this assistant wires (default:
   * `wireChat` in docsWiring.ts). Model tests hand in the chart with its invoked actors made
   * controllable, to replay paths through the real assistant and HTTP API.
   */
  provideChart?: (actors: ChatActors) => AnyStateMachine;
}

/** The invoked actors of the `chat` chart, as this assistant implements them. */
interface ChatActors {
  retrieve: ReturnType<typeof fromPromise<Retrieved, { question: string; k: number }>>;
  judge: ReturnType<typeof fromPromise<JudgeOutput, JudgeInput>>;
  generate: ReturnType<typeof fromPromise<LlmCallOutput, LlmCallInput>>;
  verify: ReturnType<typeof fromPromise<VerifyOutput, VerifyInput>>;
}

/** The DocsAssistant plus what the surface and the CLI need to run it. */
export interface DocsCore extends DocsAssistant {
  readonly retriever: Retriever;
  /** How questions are expanded, in one sentence (« ranking without query expansion: … » when not). */
  readonly expansion: string;
  /** Loads the stored index and brings it up to date with the files. */
  ready(onProgress?: (done: number, total: number, path: string) => void): Promise<SyncReport>;
  /** Re-indexes on file changes until the returned function is called. */
  watch(): () => void;
}

function toPassage(p: ScoredPassage): Passage {
  return { id: p.id, path: p.path, section: p.section, anchor: p.anchor, lineStart: p.lineStart, lineEnd: p.lineEnd, text: p.text, lang: p.lang, score: Math.round(p.score * 1000) / 1000 };
}

/** Link opening a document in the /docs viewer at a section (each path segment URL-encoded). */
export function docHref(path: string, anchor: string): string {
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  return `/docs/${encoded}${anchor ? `#${anchor}` : ''}`;
}

function toSourceRef(p: Pick<Passage, 'path' | 'section' | 'anchor' | 'lang'>): SourceRef {
  return { path: p.path, section: p.section, anchor: p.anchor, lang: p.lang, href: docHref(p.path, p.anchor) };
}

/** The OpenAI default model name makes no sense for Gemini: use Gemini's own then. */
const GEMINI_DEFAULT_EMBEDDING_MODEL = 'gemini-embedding-001';

/** The embedder EMBEDDINGS_PROVIDER asks for, or undefined (none, or no key: warned). */
export function buildEmbedder(config: Pick<AssistantConfig, 'EMBEDDINGS_PROVIDER' | 'EMBEDDINGS_MODEL' | 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'GEMINI_API_KEY' | 'GOOGLE_GEMINI_BASE_URL'>, logger?: Logger): Embedder | undefined {
  if (config.EMBEDDINGS_PROVIDER === 'none') return undefined;
  if (config.EMBEDDINGS_PROVIDER === 'openai' && config.OPENAI_API_KEY) {
    return createOpenAiEmbedder({ apiKey: config.OPENAI_API_KEY, model: config.EMBEDDINGS_MODEL, ...(config.OPENAI_BASE_URL ? { baseURL: config.OPENAI_BASE_URL } : {}) });
  }
  if (config.EMBEDDINGS_PROVIDER === 'gemini' && config.GEMINI_API_KEY) {
    const model = config.EMBEDDINGS_MODEL.startsWith('text-embedding-3') ? GEMINI_DEFAULT_EMBEDDING_MODEL : config.EMBEDDINGS_MODEL;
    return createGeminiEmbedder({ apiKey: config.GEMINI_API_KEY, model, ...(config.GOOGLE_GEMINI_BASE_URL ? { baseUrl: config.GOOGLE_GEMINI_BASE_URL } : {}) });
  }
  logger?.warn({ provider: config.EMBEDDINGS_PROVIDER }, 'embeddings provider has no API key: lexical retrieval only');
  return undefined;
}

/**
 * Streams and retries: llmCall may start a second attempt after some text was streamed. Each
 * attempt is a new `generate` child of llmCall; seeing the second one created (before it runs)
 * lets the caller drop the partial text (`onReset`).
 */
function attemptWatcher(onReset: (() => void) | undefined): (event: InspectionEvent) => void {
  let attempts = 0;
  return (event) => {
    if (event.type !== '@xstate.actor' || (event.actorRef as AnyActorRef).id !== 'generate') return;
    attempts++;
    if (attempts > 1) onReset?.();
  };
}

export function createDocsAssistant(deps: DocsAssistantDeps): DocsCore {
  const { config, logger } = deps;
  const embedder = deps.embedder ?? buildEmbedder(config, logger);
  const lexicons = deps.lexicons ?? loadConfiguredLexicons(config);
  if (lexicons.error) logger?.error({ error: lexicons.error }, lexicons.notice);
  else logger?.info(lexicons.notice);
  const retriever = new Retriever({
    root: config.CORPUS_DIR,
    ...(embedder ? { embedder } : {}),
    ...(lexicons.lexicon ? { lexicon: lexicons.lexicon } : {}),
    ...(deps.persist === false ? {} : { dataDir: config.DATA_DIR }),
    ...(logger ? { logger } : {}),
  });
  const provider = (): LlmProvider => surfaceProvider(deps.providers, config, 'docs');
  const call: Omit<LlmCallInput, 'request'> = {
    maxRetries: config.LLM_MAX_RETRIES,
    attemptTimeoutMs: config.LLM_ATTEMPT_TIMEOUT_MS,
    backoffBaseMs: config.LLM_BACKOFF_BASE_MS,
    retryAfterCapMs: config.LLM_RETRY_AFTER_CAP_MS,
  };

  function defaults(): ChatSettings {
    return {
      model: config.CHAT_MODEL,
      k: config.CHAT_TOP_K,
      threshold: config.CHAT_SCORE_THRESHOLD,
      confident: Math.max(config.CHAT_SCORE_CONFIDENT, config.CHAT_SCORE_THRESHOLD),
      temperature: config.CHAT_TEMPERATURE,
      maxTokens: config.CHAT_MAX_TOKENS,
      historyTurns: config.CHAT_HISTORY_TURNS,
    };
  }

  async function runChat(input: ChatInput, llm: LlmProvider, stream: { onDelta?: (t: string) => void; onReset?: () => void }, signal?: AbortSignal): Promise<ChatOutput> {
    const { onDelta, onReset } = stream;
    const actors: ChatActors = {
      retrieve: fromPromise<Retrieved, { question: string; k: number }>(async ({ input: q, signal: s }) => retrieveWithSignals(q.question, q.k, s)),
      judge: fromPromise<JudgeOutput, JudgeInput>(({ input: j, signal: s }) =>
        judgeRelevance(
          j,
          {
            model: config.CHAT_RELEVANCE_MODEL || input.settings.model,
            timeoutMs: config.CHAT_RELEVANCE_TIMEOUT_MS,
            call: (req, sig) => runLlmCall(llm, req, { signal: sig, ...(deps.metrics ? { metrics: deps.metrics } : {}) }),
            ...(deps.onRelevanceCall ? { onCall: deps.onRelevanceCall } : {}),
          },
          s,
        ),
      ),
      verify: fromPromise<VerifyOutput, VerifyInput>(({ input: v, signal: s }) =>
        checkClaims(
          v,
          {
            model: config.CHAT_RELEVANCE_MODEL || input.settings.model,
            timeoutMs: config.CHAT_RELEVANCE_TIMEOUT_MS,
            call: (req, sig) => runLlmCall(llm, req, { signal: sig, ...(deps.metrics ? { metrics: deps.metrics } : {}) }),
            ...(deps.onClaimCheck ? { onCall: deps.onClaimCheck } : {}),
          },
          s,
        ),
      ),
      generate: fromPromise<LlmCallOutput, LlmCallInput>(({ input: req, signal: s }) =>
        runLlmCall(llm, req, {
          signal: s,
          ...(onDelta ? { onDelta, inspect: attemptWatcher(onReset) } : {}),
          ...(deps.metrics ? { metrics: deps.metrics } : {}),
        }),
      ),
    };
    const logic = deps.provideChart ? deps.provideChart(actors) : wireChat(actors);
    const systemId = `chat:${randomUUID()}`;
    const ref: AnyActorRef = deps.runtime ? deps.runtime.start('chat', systemId, logic, input) : createActor(logic, { input }).start();
    try {
      return await new Promise<ChatOutput>((resolve) => {
        const settle = (): boolean => {
          const snap = ref.getSnapshot() as { status: string; output?: ChatOutput };
          if (snap.status === 'done' && snap.output) {
            resolve(snap.output);
            return true;
          }
          return false;
        };
        if (settle()) return;
        const sub = ref.subscribe({ next: () => settle() && sub.unsubscribe(), complete: () => settle() });
        if (signal) {
          if (signal.aborted) ref.send({ type: 'chat.cancel' });
          else signal.addEventListener('abort', () => ref.send({ type: 'chat.cancel' }), { once: true });
        }
      });
    } finally {
      if (deps.runtime) deps.runtime.stop(systemId);
      else ref.stop();
    }
  }

  /** Passages and the question-level cues the guard reads (actors/retrieval/relevance.ts). */
  async function retrieveWithSignals(question: string, k: number, signal?: AbortSignal): Promise<Retrieved> {
    // The sources are one passage per page; the confidence reads the same ranking with up to three
    // per page (lexicalIndex.ts `ranking.judgedPerFile`), which separates better (§ Ninth round).
    const { passages, judged } = await retriever.retrieveJudged(question, k, signal);
    const read = judged.map(toPassage);
    const explained = read.map((p) => retriever.explain(question, p.id));
    const { signals } = questionSignals(question, read, explained);
    const unknownThings = [...new Set([...namedThings(question).filter((t) => !retriever.mentions(t)), ...signals.unknownNames])];
    // A name no retrieved passage holds is what the question is about only when it is specific to
    // it: the corpus's own names (« MCP », « URL ») are missing from many a right passage. And a
    // question that names one of the corpus's own subjects, found in the passages (« according to
    // RGAA »), is about the docs: the absent product it also names is its context (« a YouTube
    // player »).
    const weightOf = new Map((explained[0] ?? []).map((w) => [w.word, w.weight]));
    const ownSubject = capitalisedNames(question).some((n) => weightOf.has(n) && weightOf.get(n)! < SPECIFIC_NAME && !signals.namesNotRetrieved.includes(n));
    const absentNames = ownSubject ? [] : [...new Set([...signals.unknownNames, ...signals.namesNotRetrieved.filter((n) => (weightOf.get(n) ?? 0) >= SPECIFIC_NAME)])];
    const tokens = analyzeQuery(question);
    const groups = wordGroups(question, tokens);
    const dfOf = new Map((explained[0] ?? []).map((w) => [w.word, w.df]));
    const unseenWords = new Set(groups.filter((_, i) => dfOf.get(tokens[i]!.word) === 0)).size;
    const scope = { contentWords: new Set(groups).size, heldTogether: retriever.heldTogether(question, judged.map((p) => p.id)), unknownThings, absentNames, unseenWords };
    return { passages: passages.map(toPassage), signals: { ...signals, scope } };
  }

  const assistant: DocsCore = {
    retriever,
    expansion: lexicons.notice,
    ready(onProgress) {
      retriever.load();
      return retriever.sync(onProgress);
    },
    watch: () => retriever.watch(),
    search: (query, k) => retriever.search(query, k).map(toPassage),
    retrieve: async (query, k, signal) => (await retriever.retrieve(query, k, signal)).map(toPassage),
    defaults,
    providerName: () => provider().name,
    documents(): DocMeta[] {
      return retriever.documents().map((d) => ({ path: d.path, title: d.title, headings: d.headings.map((h) => ({ depth: h.depth, text: h.text, anchor: h.anchor })) }));
    },
    readDocument(path) {
      // Only indexed paths are served: no traversal outside the corpus whatever `path` holds.
      const doc = retriever.document(path);
      if (!doc) return undefined;
      try {
        const markdown = documentMarkdown(doc.path, readFileSync(join(retriever.root, doc.path), 'utf8'));
        return markdown === undefined ? undefined : { path: doc.path, title: doc.title, lang: doc.lang, markdown };
      } catch {
        return undefined;
      }
    },
    async ask(req): Promise<ChatAnswer> {
      const t0 = performance.now();
      const answer = await answerOnce(req);
      deps.onAnswer?.(answer, performance.now() - t0, req.question);
      return answer;
    },
  };

  async function answerOnce(req: Parameters<DocsAssistant['ask']>[0]): Promise<ChatAnswer> {
    const llm = provider();
    const canJudge = llm.name !== 'offline';
    // Checked claims are shown once checked: nothing the model writes is streamed before that.
    const canVerify = canJudge && config.CHAT_CLAIM_CHECK === 'on';
    // The extractive answer exists whole at once, and its [n] become the sources' numbers only at the
    // end: streamed piecewise it would show the passages' numbers, which the sources list does not use.
    const whole = canVerify || !canJudge;
    const stream = whole ? {} : { ...(req.onDelta ? { onDelta: req.onDelta } : {}), ...(req.onReset ? { onReset: req.onReset } : {}) };
    const lang = detectLang(req.question);
    const settings = { ...req.settings, confident: Math.max(req.settings.confident, req.settings.threshold) };
    const out = await runChat({ question: req.question, history: req.history ?? [], settings, call, lang, canJudge, canVerify }, llm, stream, req.signal);
    // The conversation's steps are durable before its answer leaves (core/journal/durable.ts).
    const durable = beforeEffectLeaves();
    if (durable) await durable;
    if (out.droppedClaims.length > 0) {
      logger?.warn({ droppedClaims: out.droppedClaims, question: req.question }, 'chat: sentences their cited passage does not support were removed');
      deps.onDroppedClaims?.(req.question, lang, out.droppedClaims);
    }
    if (whole && out.state === 'answered') req.onDelta?.(out.answer);
    const base = { provider: out.result?.provider ?? llm.name, model: out.result?.model ?? req.settings.model, flagged: out.flagged, lang, confidence: out.confidence, removedMarks: out.removedMarks, droppedClaims: out.droppedClaims.length };
    if (out.removedMarks > 0) logger?.warn({ removedMarks: out.removedMarks }, 'chat: citation marks naming no source were removed');
    if (out.flagged.length > 0) logger?.warn({ flagged: out.flagged }, 'chat: citations of passages that were not retrieved were removed');
    if (out.state === 'failed') {
      logger?.warn({ error: out.error }, 'chat: question failed');
      return { ...base, state: 'failed', answer: FAILED_ANSWERS[lang], outOfScope: false, sources: [], ...(out.error ? { error: out.error } : {}) };
    }
    if (out.state === 'outOfScope') return { ...base, state: 'outOfScope', answer: out.answer, outOfScope: true, sources: [] };
    return { ...base, state: 'answered', answer: out.answer, outOfScope: false, sources: out.cited.map(toSourceRef), ...(out.notice ? { notice: out.notice } : {}) };
  }

  return assistant;
}
