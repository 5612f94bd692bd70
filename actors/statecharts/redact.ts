import { redactText } from '../../core/log.js';

/**
 * Strips what must never leave an actor through the inspector: API keys, JWTs, passwords,
 * Authorization headers, audio and other binary payloads. Applied to every context, event and
 * snapshot before it is sent to the /inspect page or any other inspection sink.
 */

const SECRET_KEY = /(api[-_]?key|apikey|secret|password|passwd|token|jwt|authorization|cookie|credential|private[-_]?key)/i;
/** Fields that carry audio or raw bytes in palabre's events (`{type:'audio', data:'<base64>'}`, chunks…). */
const BINARY_KEY = /^(audio|pcm|chunk|data|bytes|wav|inlineData)$/i;
const LONG_BASE64 = /^[A-Za-z0-9+/=_-]{256,}$/;

const MAX_DEPTH = 8;
const MAX_STRING = 2000;
const MAX_ARRAY = 100;

function redactString(s: string, key: string | undefined): string {
  if (key && BINARY_KEY.test(key) && LONG_BASE64.test(s)) return `[binary ${Math.floor((s.length * 3) / 4)} bytes]`;
  if (LONG_BASE64.test(s)) return `[binary ${Math.floor((s.length * 3) / 4)} bytes]`;
  // The logs' free-text rules (core/log.ts): JWTs, API keys, URL passwords, secret query values.
  let out = redactText(s);
  if (out.length > MAX_STRING) out = `${out.slice(0, MAX_STRING)}… [${out.length - MAX_STRING} more chars]`;
  return out;
}

/** A JSON-safe deep copy with secrets and binary payloads replaced by placeholders. */
export function redactForInspection(value: unknown, key?: string, depth = 0, seen = new WeakSet<object>()): unknown {
  if (key && SECRET_KEY.test(key) && value !== undefined && value !== null && value !== '') return '[redacted]';
  if (value === null || value === undefined) return value ?? null;
  if (typeof value === 'string') return redactString(value, key);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
  if (typeof value !== 'object') return String(value);
  if (value instanceof Uint8Array || value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    return `[binary ${(value as ArrayBuffer).byteLength} bytes]`;
  }
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Error) return { name: value.name, message: redactString(value.message, undefined) };
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[…]';
  seen.add(value);
  // Actor refs and other live objects: show what they are, not their internals.
  const maybeRef = value as { sessionId?: unknown; send?: unknown; id?: unknown };
  if (typeof maybeRef.send === 'function' && typeof maybeRef.sessionId === 'string') {
    return `[actor ${String(maybeRef.id ?? maybeRef.sessionId)}]`;
  }
  if (value instanceof AbortSignal) return `[AbortSignal${value.aborted ? ' aborted' : ''}]`;
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ARRAY).map((v) => redactForInspection(v, key, depth + 1, seen));
    if (value.length > MAX_ARRAY) items.push(`[${value.length - MAX_ARRAY} more]`);
    return items;
  }
  if (value instanceof Map) {
    return redactForInspection(Object.fromEntries(value), key, depth + 1, seen);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactForInspection(v, k, depth + 1, seen);
  return out;
}
