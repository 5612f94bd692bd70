import { redactText } from '../log.js';

/**
 * A value as the journal keeps it: plain JSON. Why each rule:
 * - secrets never reach the store: fields named like a key, token, password or cookie are
 *   replaced, and free text goes through the logs' redaction (core/log.ts);
 * - audio is referenced, not copied: a binary payload becomes `{ $bytes: length }`;
 * - an actor reference becomes `{ $actor: id }`, a function `{ $fn: name }`: neither can be stored,
 *   and replay compares what a conversation did, not object identities;
 * - depth, array length and string length are bounded, so one odd payload cannot bloat a journal.
 */
const SECRET_FIELD = /^(?:api[-_]?key|apikey|key|token|access[-_]?token|refresh[-_]?token|jwt|password|secret|authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-goog-api-key|session[-_]?secret|client[-_]?secret)$/i;
/** What any of the logs' free-text secret patterns starts with: most texts skip the five of them. */
const MAYBE_SECRET = /[?&][a-z_]+=|:\/\/|bearer|basic|eyJ|sk-|AIza/i;
const MAX_DEPTH = 12;
const MAX_ARRAY = 2000;
const MAX_STRING = 64_000;

/** How an actor reference is named in the journal (the tape names them relative to its conversation). */
export type ActorNamer = (ref: { id: string }) => string;

export function toPlain(value: unknown, nameActor?: ActorNamer, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (value === null || value === undefined) return value ?? null;
  switch (typeof value) {
    case 'string': {
      const text = value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…[${value.length} chars]` : value;
      return MAYBE_SECRET.test(text) ? redactText(text) : text;
    }
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'boolean':
      return value;
    case 'bigint':
      return value.toString();
    case 'function':
      return { $fn: (value as { name?: string }).name || 'anonymous' };
    case 'symbol':
    case 'undefined':
      return null;
    default:
      break;
  }
  const obj = value as object;
  if (ArrayBuffer.isView(obj)) return { $bytes: obj.byteLength };
  if (obj instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && obj instanceof SharedArrayBuffer)) return { $bytes: obj.byteLength };
  if (isActorRef(obj)) return { $actor: nameActor ? nameActor(obj) : obj.id };
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? null : obj.toISOString();
  if (obj instanceof Error) {
    // Its own fields too (a provider error's kind, status, retry-after): charts branch on them.
    const fields = toPlain({ ...obj }, nameActor, depth + 1, seen) as Record<string, unknown>;
    return { ...fields, $error: obj.name, message: redactText(obj.message) };
  }
  if (seen.has(obj)) return { $cycle: true };
  if (depth >= MAX_DEPTH) return { $depth: true };
  seen.add(obj);
  try {
    if (Array.isArray(obj)) {
      const out = obj.slice(0, MAX_ARRAY).map((v) => toPlain(v, nameActor, depth + 1, seen));
      if (obj.length > MAX_ARRAY) out.push({ $more: obj.length - MAX_ARRAY });
      return out;
    }
    if (obj instanceof Map) return toPlain(Object.fromEntries(obj), nameActor, depth, seen);
    if (obj instanceof Set) return toPlain([...obj], nameActor, depth, seen);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) {
      if (v === undefined) continue;
      out[k] = SECRET_FIELD.test(k) && (typeof v === 'string' || typeof v === 'number') ? '[redacted]' : toPlain(v, nameActor, depth + 1, seen);
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}

function isActorRef(obj: object): obj is { id: string } {
  const o = obj as { send?: unknown; getSnapshot?: unknown; sessionId?: unknown; id?: unknown };
  return typeof o.send === 'function' && typeof o.getSnapshot === 'function' && typeof o.sessionId === 'string' && typeof o.id === 'string';
}

/**
 * An event of the journal as a chart receives it again: errors (`{ $error }`) become Error objects
 * with their name, message and fields, so that a chart reading `event.error` sees what it saw.
 */
export function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (!value || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (typeof o.$error === 'string') {
    const { $error, message, ...fields } = o;
    const err = new Error(typeof message === 'string' ? message : '');
    err.name = $error;
    return Object.assign(err, Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, revive(v)])));
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, revive(v)]));
}
