/**
 * Turning whatever an SDK or the network throws into one `LlmError` kind, so that the llmCall
 * machine decides retries from `kind`/`transient` alone. Provider files recognise their own SDK's
 * classes and hand the HTTP facts (status, headers) to `errorFromStatus`; everything else goes
 * through `errorFromUnknown`. Messages are scrubbed of keys (Gemini puts `?key=` in URLs).
 */
import { redactText } from '../../core/log.js';
import { LlmError, type LlmErrorKind, type ProviderName } from '../../machines/llmPort.js';

type HeaderBag = Headers | Record<string, string | string[] | undefined> | undefined | null;

function header(headers: HeaderBag, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const v = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Milliseconds to wait from `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date).
 * Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfter(headers: HeaderBag, now: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return Math.round(n);
  }
  const ra = header(headers, 'retry-after');
  if (ra === undefined || ra.trim() === '') return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return secs >= 0 ? Math.round(secs * 1000) : undefined;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function kindFromStatus(status: number): LlmErrorKind {
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  // Anthropic's 529 "overloaded" and every 5xx are the server's trouble: worth a retry.
  if (status >= 500) return 'server';
  // 409 (lock timeout at OpenAI) is retried by the SDKs themselves: keep it transient.
  if (status === 409) return 'server';
  return 'bad_request';
}

export function errorFromStatus(
  provider: ProviderName,
  status: number,
  headers: HeaderBag,
  message: string,
  cause?: unknown,
  retryAfterMs?: number,
): LlmError {
  return new LlmError(kindFromStatus(status), `${provider} HTTP ${status}: ${redactText(message).slice(0, 500)}`, {
    provider,
    status,
    retryAfterMs: retryAfterMs ?? parseRetryAfter(headers),
    cause,
  });
}

const NETWORK_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
  'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT',
]);

function causeChain(err: unknown): Array<{ name?: unknown; code?: unknown; message?: unknown }> {
  const out: Array<{ name?: unknown; code?: unknown; message?: unknown }> = [];
  let cur: unknown = err;
  for (let i = 0; i < 6 && cur && typeof cur === 'object'; i++) {
    out.push(cur as { name?: unknown; code?: unknown; message?: unknown });
    cur = (cur as { cause?: unknown }).cause;
  }
  return out;
}

/** True when the signal's reason says the deadline passed (AbortSignal.timeout) rather than a caller abort. */
function isTimeoutReason(reason: unknown): boolean {
  return typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError';
}

/** An abort seen through the caller's signal: a timeout if the signal says so, else `aborted`. */
export function abortError(provider: ProviderName, signal: AbortSignal | undefined, cause?: unknown): LlmError {
  if (signal && isTimeoutReason(signal.reason)) return new LlmError('timeout', `${provider}: request timed out`, { provider, cause });
  return new LlmError('aborted', `${provider}: request aborted`, { provider, cause });
}

/**
 * Anything not already recognised by the provider: aborts, socket errors, JSON parse errors.
 * `signal` is the request's signal: an error thrown after it fired is an abort whatever it looks like.
 */
export function errorFromUnknown(provider: ProviderName, err: unknown, signal?: AbortSignal): LlmError {
  if (err instanceof LlmError) return err;
  if (signal?.aborted) return abortError(provider, signal, err);
  const chain = causeChain(err);
  const message = redactText(err instanceof Error ? err.message : String(err)).slice(0, 500);
  for (const e of chain) {
    if (e.name === 'TimeoutError' || e.code === 'ETIMEDOUT' || e.code === 'UND_ERR_HEADERS_TIMEOUT') {
      return new LlmError('timeout', `${provider}: ${message}`, { provider, cause: err });
    }
    if (e.name === 'AbortError') return new LlmError('aborted', `${provider}: ${message}`, { provider, cause: err });
  }
  for (const e of chain) {
    if (e.name === 'SyntaxError') return new LlmError('malformed', `${provider}: unreadable response (${message})`, { provider, cause: err });
    if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) {
      return new LlmError('network', `${provider}: connection failed (${e.code})`, { provider, cause: err });
    }
  }
  // undici: "fetch failed" (connect) and "terminated" (socket closed while reading the body).
  if (err instanceof TypeError && /fetch failed|terminated|other side closed|socket/i.test(message)) {
    return new LlmError('network', `${provider}: connection failed (${message})`, { provider, cause: err });
  }
  if (/JSON|Unexpected (?:end|token)|Incomplete JSON/i.test(message)) {
    return new LlmError('malformed', `${provider}: unreadable response (${message})`, { provider, cause: err });
  }
  // Anything else is not a known transport failure: fail at once rather than retry blindly.
  return new LlmError('malformed', `${provider}: unexpected error (${message})`, { provider, cause: err });
}

/** A response whose shape is not what the API promises. */
export function malformed(provider: ProviderName, what: string): LlmError {
  return new LlmError('malformed', `${provider}: malformed response (${what})`, { provider });
}

export function emptyText(provider: ProviderName, model: string): LlmError {
  return new LlmError('empty', `${provider}: ${model} returned no text`, { provider });
}
