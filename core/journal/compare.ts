import type { JournalStep } from './step.js';

/** What replay compares at each step; the rest (times, senders, call results) may differ harmlessly. */
const COMPARED = ['event', 'state', 'actions', 'invoked'] as const;
type Compared = (typeof COMPARED)[number];

export interface StepDifference {
  field: Compared | 'status';
  /** Where inside the field the first difference is (e.g. `[0].params.request.system`). */
  path: string;
  expected: unknown;
  got: unknown;
}

/** Stable text of a plain value (keys sorted), so that key order never counts as a difference. */
function canonical(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  return v;
}

function view(step: JournalStep, field: Compared | 'status'): unknown {
  switch (field) {
    case 'event':
      // The payload of a fed event is the journal's own; what counts is which event was processed.
      return step.event.type;
    case 'state':
      return step.state;
    case 'status':
      return step.status;
    case 'actions':
      return step.actions;
    case 'invoked':
      return step.invoked;
  }
}

/**
 * A step the process ended in the middle of (`status: partial`, written because one of its effects
 * was leaving: core/journal/durable.ts) holds its event and the actions and starts done until then:
 * those are compared with the beginning of today's step; its state was never reached.
 */
export function isPartial(step: JournalStep): boolean {
  return step.status === 'partial';
}

/** The first difference between two steps, or undefined when they match. */
export function compareSteps(expected: JournalStep, got: JournalStep): StepDifference | undefined {
  const partial = isPartial(expected);
  for (const field of [...COMPARED, 'status'] as const) {
    if (partial && (field === 'state' || field === 'status')) continue;
    const a = view(expected, field);
    let b = view(got, field);
    if (partial && Array.isArray(a) && Array.isArray(b)) b = b.slice(0, a.length);
    if (canonical(a) === canonical(b)) continue;
    const at = firstDifference(a, b, '');
    return { field, path: at.path, expected: at.a, got: at.b };
  }
  return undefined;
}

function firstDifference(a: unknown, b: unknown, path: string): { path: string; a: unknown; b: unknown } {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (canonical(a[i]) !== canonical(b[i])) {
        // A missing or extra element is the difference itself.
        if (i >= a.length || i >= b.length) return { path: `${path}[${i}]`, a: a[i], b: b[i] };
        // Different actions: say so whole, unless they are the same action with other params.
        const ai = a[i] as { type?: unknown };
        const bi = b[i] as { type?: unknown };
        if (ai && bi && typeof ai === 'object' && typeof bi === 'object' && 'type' in ai && ai.type !== bi.type) return { path: `${path}[${i}]`, a: a[i], b: b[i] };
        return firstDifference(a[i], b[i], `${path}[${i}]`);
      }
    }
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
      const av = (a as Record<string, unknown>)[k];
      const bv = (b as Record<string, unknown>)[k];
      if (canonical(av) !== canonical(bv)) return firstDifference(av, bv, `${path}.${k}`);
    }
  }
  return { path, a, b };
}
