import type { ChatMessage } from '../prompts/chatMessage.js';

/**
 * The LLM port: one interface every provider implements (openai, anthropic, gemini, offline).
 *
 * It lives with the charts because the llmCall machine defines it: machines never import a
 * provider; they invoke an actor that calls `LlmProvider.generate`, provided at wiring time.
 * Everything a provider returns is normalised here so that usage, errors and citations look the
 * same whichever API answered.
 */

export type ProviderName = 'openai' | 'anthropic' | 'gemini' | 'offline';

/** A retrieved passage handed to the model as a citable source (Claude `search_result` blocks). */
export interface SourceDocument {
  /** Stable id of the passage; citations refer back to it. */
  id: string;
  title: string;
  /** Where the passage comes from, e.g. `rgpd/14-….md#durees`. */
  source: string;
  text: string;
}

export interface Citation {
  /** Id of the SourceDocument cited. */
  sourceId: string;
  citedText?: string;
}

export interface GenerateRequest {
  /** Model id as configured; never a literal in code. */
  model: string;
  /**
   * The stable block (system prompt + fixed context). Anthropic marks it with
   * `cache_control: {type: 'ephemeral'}`; OpenAI-compatible servers cache long prefixes themselves.
   */
  system?: string;
  messages: ChatMessage[];
  /** Sources for grounded answers (docs assistant). */
  documents?: SourceDocument[];
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  /** GPT-5 family only; ignored where the capability table says the model has no such knob. */
  reasoningEffort?: 'minimal' | 'low' | 'medium' | 'high';
  /** Ask for a JSON object (OpenAI `response_format`, Gemini `responseMimeType`). */
  json?: boolean;
  /** Aborts the HTTP request in flight. */
  signal?: AbortSignal;
  /**
   * Deadline of this one request (ms); when it passes the request is aborted and fails with kind
   * `timeout`. llmCall may instead abort `signal` with `AbortSignal.timeout()`: same result.
   */
  timeoutMs?: number;
  /** Called with each text delta when the caller wants streaming. */
  onDelta?: (delta: string) => void;
  /**
   * What the call is for (`skull`, `chat`, `t2`, `correction`…): a metrics label, and how the
   * offline provider picks its deterministic responder.
   */
  purpose?: string;
  /** Free data for the offline responders (e.g. the T2 fact sheet); never sent to a real API. */
  offlineHints?: Record<string, unknown>;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache (Anthropic cache read, OpenAI cached_tokens). */
  cachedTokens: number;
  /** Input tokens written to the prompt cache (Anthropic cache_creation_input_tokens). */
  cacheCreationTokens: number;
  latencyMs: number;
}

export interface GenerateResult {
  text: string;
  /** The model that actually answered, as the API reported it. */
  model: string;
  provider: ProviderName;
  usage: Usage;
  citations?: Citation[];
  finishReason?: string;
}

export type LlmErrorKind =
  | 'timeout'
  | 'rate_limited'
  | 'server'
  | 'network'
  | 'aborted'
  | 'bad_request'
  | 'auth'
  | 'not_found'
  | 'malformed'
  | 'empty';

const TRANSIENT: ReadonlySet<LlmErrorKind> = new Set(['timeout', 'rate_limited', 'server', 'network', 'empty']);

/** The one error type that leaves a provider. `transient` drives retries in the llmCall machine. */
export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  readonly status: number | undefined;
  /** From the `retry-after` / `retry-after-ms` header, in ms, when the provider sent one. */
  readonly retryAfterMs: number | undefined;
  readonly provider: ProviderName;

  constructor(
    kind: LlmErrorKind,
    message: string,
    opts: { provider: ProviderName; status?: number; retryAfterMs?: number; cause?: unknown },
  ) {
    super(message, { cause: opts.cause });
    this.name = 'LlmError';
    this.kind = kind;
    this.provider = opts.provider;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
  }

  get transient(): boolean {
    return TRANSIENT.has(this.kind);
  }
}

export interface LlmProvider {
  readonly name: ProviderName;
  generate(req: GenerateRequest): Promise<GenerateResult>;
}
