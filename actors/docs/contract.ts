import type { PassageRecord } from '../retrieval/ingest.js';

/**
 * Contract between the docs assistant's core (retrieval + chat machine, `actors/docs/`,
 * `actors/retrieval/`) and its surfaces (pages in `web/`, JSON API and CLI). The core implements
 * `DocsAssistant`; pages and API only call it.
 *
 * - `DocsAssistant.retrieve(query, k, signal?)`: async search, hybrid (BM25 + embeddings, RRF)
 *   when EMBEDDINGS_PROVIDER is set; `search` stays synchronous and lexical. Scores mean the same
 *   in both (docs/docs-assistant.md, "The score the guard trusts").
 * - Who builds what: `createDocsAssistant(deps)` in actors/docs/assistant.ts builds the assistant;
 *   the docs surface (actors/docs/surface.ts) creates it once, mounts the JSON API
 *   (transports/http/docsApi.ts) and calls `mountDocsPages({app, db, config, logger, assistant})`
 *   from web/docs/mount.ts. `getDocsAssistant()` (actors/docs/surface.ts) returns the running
 *   instance for anything else in the process.
 * - Anchors: `slugify`/`createSlugger` in actors/docs/slug.ts, applied to marked heading tokens'
 *   `.text` in document order after stripping a leading `---` front matter block.
 * - Source hrefs are `/docs/<path, each segment URL-encoded>#<anchor>` (`docHref` in assistant.ts).
 * - Streaming: POST /api/chat/stream (SSE): events `delta` {text}, then `answer` (a ChatAnswer), or
 *   `error` {message}; a `reset` event (from `onReset`) means a retried model call starts over, so
 *   the page drops the text streamed so far. `onDelta` receives the model's text as it comes; with the offline provider
 *   the whole extractive answer comes in word deltas.
 */

/** Settings one answer is produced with (visitor session on /assistant, ChatConfig on /docs). */
export interface ChatSettings {
  model: string;
  /** Passages retrieved. */
  k: number;
  /** Low bound: best normalised score (0–1) under which a question is out of scope, no model called. */
  threshold: number;
  /**
   * High bound: from this best score on, the question is answered with confidence "high". Between
   * the bounds the assistant asks (relevance call with a provider; offline, confidence "low").
   */
  confident: number;
  temperature: number;
  maxTokens: number;
  /** Turns of history sent to the model. */
  historyTurns: number;
}

/** A retrieved passage: where it comes from (see PassageRecord) and how well it matches. */
export interface Passage extends PassageRecord {
  /** Normalised score in [0, 1] (see docs for its meaning). */
  score: number;
}

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

export interface SourceRef {
  path: string;
  section: string;
  /** Link that opens the document at the section in the /docs viewer. */
  href: string;
  anchor: string;
  /** Language of the document the passage comes from (quoted text is marked with it). */
  lang: 'fr' | 'en';
}

export interface ChatAnswer {
  /** Final state of the chat machine. */
  state: 'answered' | 'outOfScope' | 'failed';
  /** Plain text (may contain simple Markdown); pages sanitise before rendering. `[n]` is `sources[n-1]`. */
  answer: string;
  outOfScope: boolean;
  /**
   * Answered: "high" when the passages answer it (score over the high bound, or the relevance call
   * said so), "low" when they may not. Refused: "high" when the guard or the relevance call refused,
   * the band's confidence when the model declined.
   */
  confidence: 'high' | 'low';
  /** Language of the question, which the answer (and refusal) is written in. */
  lang: 'fr' | 'en';
  /** Said with a low-confidence answer (« Ces passages semblent proches… »), in the question's language. */
  notice?: string;
  /** `[n]` marks removed because they named no source. */
  removedMarks: number;
  /** Sentences removed because the passage they cite does not support them (the claim check; 0 without it). */
  droppedClaims?: number;
  sources: SourceRef[];
  /** Citations removed because they named no retrieved passage. */
  flagged: string[];
  provider: string;
  model: string;
  error?: string;
}

export interface DocMeta {
  path: string;
  title: string;
  headings: Array<{ depth: number; text: string; anchor: string }>;
}

export interface DocsAssistant {
  search(query: string, k: number): Passage[];
  /** Like `search`, hybrid when embeddings are configured (added by DOCS-CORE; optional for fakes). */
  retrieve?(query: string, k: number, signal?: AbortSignal): Promise<Passage[]>;
  ask(req: {
    question: string;
    history?: ChatTurn[];
    settings: ChatSettings;
    onDelta?: (text: string) => void;
    /** A retried model call starts over: discard the deltas received so far (added by DOCS-CORE). */
    onReset?: () => void;
    signal?: AbortSignal;
  }): Promise<ChatAnswer>;
  /** Default settings from configuration. */
  defaults(): ChatSettings;
  /** The documents of the corpus, for the viewer's navigation. */
  documents(): DocMeta[];
  /** Raw source of one document (path relative to the corpus root), or undefined if unknown. */
  readDocument(path: string): { path: string; title: string; lang?: 'fr' | 'en'; markdown: string } | undefined;
  /** Provider name in use ("offline" when no key): pages say so. */
  providerName(): string;
}
