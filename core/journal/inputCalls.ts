import type { JournalCall } from './step.js';

/**
 * A conversation's input may carry functions: its clock (`now`), a jitter source (`random`), a
 * token counter. What they return is not in any event, yet the chart's decisions and payloads
 * depend on it (a reply's timestamp, a retry's delay). So the recorder hands the actor wrapped
 * functions that note each result, and replay hands back the noted results in the same order.
 * Functions at the top level of the input and one level down in a plain object are covered; the
 * name of a call is its path (`now`, `tokens.count`).
 */
export function wrapInput(input: unknown, onCall: (fn: string, value: unknown) => void): unknown {
  if (!isPlainObject(input)) return input;
  const out: Record<string, unknown> = {};
  let changed = false;
  for (const [k, v] of Object.entries(input)) {
    if (typeof v === 'function') {
      out[k] = wrapFn(k, v as (...a: unknown[]) => unknown, onCall);
      changed = true;
    } else if (isPlainObject(v) && Object.values(v).some((x) => typeof x === 'function')) {
      const inner: Record<string, unknown> = {};
      for (const [k2, v2] of Object.entries(v)) inner[k2] = typeof v2 === 'function' ? wrapFn(`${k}.${k2}`, v2 as (...a: unknown[]) => unknown, onCall) : v2;
      out[k] = inner;
      changed = true;
    } else out[k] = v;
  }
  return changed ? out : input;
}

function wrapFn(name: string, fn: (...a: unknown[]) => unknown, onCall: (fn: string, value: unknown) => void): (...a: unknown[]) => unknown {
  return function journaled(this: unknown, ...args: unknown[]) {
    const value = fn.apply(this, args);
    onCall(name, value);
    return value;
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Source of the recorded results during replay: the calls of the step being replayed, in order. */
export class CallFeed {
  private queue: JournalCall[] = [];
  private last = new Map<string, unknown>();

  /** The step now being replayed: its recorded calls are handed back in order. */
  load(calls: readonly JournalCall[] | undefined): void {
    this.queue = [...(calls ?? [])];
  }

  next(fn: string): unknown {
    const i = this.queue.findIndex((c) => c.fn === fn);
    if (i >= 0) {
      const [c] = this.queue.splice(i, 1);
      this.last.set(fn, c!.value);
      return c!.value;
    }
    // Today's chart calls it more often than the recorded one did: the last value stands.
    return this.last.get(fn);
  }
}

/**
 * The recorded input (functions stored as `{ $fn }`) made usable again: each function returns the
 * recorded results (`feed`), unless `given` supplies the real one by path (e.g. a tokenizer).
 */
export function reviveInput(input: unknown, feed: CallFeed, given: Readonly<Record<string, (...a: unknown[]) => unknown>> = {}, fallback: (fn: string) => unknown = () => undefined): unknown {
  const fnAt = (path: string) => given[path] ?? ((): unknown => {
    const v = feed.next(path);
    return v === undefined ? fallback(path) : v;
  });
  if (!isPlainObject(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (isFnMarker(v)) out[k] = fnAt(k);
    else if (isPlainObject(v) && Object.values(v).some(isFnMarker)) {
      const inner: Record<string, unknown> = {};
      for (const [k2, v2] of Object.entries(v)) inner[k2] = isFnMarker(v2) ? fnAt(`${k}.${k2}`) : v2;
      out[k] = inner;
    } else out[k] = v;
  }
  return out;
}

function isFnMarker(v: unknown): boolean {
  return isPlainObject(v) && typeof v.$fn === 'string' && Object.keys(v).length === 1;
}
