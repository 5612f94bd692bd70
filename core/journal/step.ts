import { z } from 'zod';

/**
 * One step of a conversation's journal: an event the conversation's actor received, what it did
 * while processing it, and the state it reached. Every value is plain JSON (core/journal/plain.ts):
 * actor references are named by id, binary payloads by their length, secrets redacted.
 */
export interface JournalStep {
  /** 0 for the start (`xstate.init`), then one per event processed, in order. */
  seq: number;
  /** Milliseconds since the conversation started, on the runtime's clock (simulated in tests). */
  at: number;
  /**
   * Who sent the event: `edge` (a transport or anyone outside the conversation), `self` (a timer:
   * `after`, a delayed raise; or the chart sending to itself), `child:<id>` (an invoked or spawned
   * actor: its `xstate.done.actor.*` / `xstate.error.actor.*` with the output, or what it sent back).
   */
  from: string;
  event: { type: string } & Record<string, unknown>;
  /** Actions executed, in order: named effects with their params, and XState's built-in ones (sendTo, raise, emit, cancel, stopChild). */
  actions: JournalAction[];
  /** Actors started: an invoke's src and input (a model request is an input) or a spawn's. */
  invoked: JournalInvoke[];
  /** Values returned by the functions of the conversation's input (clock, random), in call order: replay hands them back. */
  calls?: JournalCall[];
  /** The state value after the step, and the snapshot's status (`active`, `done`, `error`). */
  state: unknown;
  status: string;
}

export interface JournalAction {
  type: string;
  params?: unknown;
}

export interface JournalInvoke {
  id: string;
  src: string;
  input?: unknown;
}

export interface JournalCall {
  fn: string;
  value: unknown;
}

/** A recorded conversation's header, as `palabre journal list` prints it. */
export interface JournalSummary {
  id: string;
  /** The conversation's systemId in the runtime (e.g. `skull:<device>`). */
  systemId: string;
  surface: string;
  /** The machine kind the conversation was started with (`skull`, `chat`, `t2live`…). */
  machine: string;
  startedAt: string;
  endedAt: string | null;
  steps: number;
}

const plain = z.unknown();

export const journalStepSchema: z.ZodType<JournalStep> = z.object({
  seq: z.number().int().nonnegative(),
  at: z.number(),
  from: z.string(),
  event: z.object({ type: z.string() }).catchall(plain),
  actions: z.array(z.object({ type: z.string(), params: plain.optional() })),
  invoked: z.array(z.object({ id: z.string(), src: z.string(), input: plain.optional() })),
  calls: z.array(z.object({ fn: z.string(), value: plain })).optional(),
  state: plain,
  status: z.string(),
}) as z.ZodType<JournalStep>;

/** A journal as read back from the store or a fixture file. */
export const journalFileSchema = z.object({
  id: z.string(),
  systemId: z.string(),
  surface: z.string(),
  machine: z.string(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  startMs: z.number(),
  input: plain,
  steps: z.array(journalStepSchema),
});
/**
 * A whole journal: its header, the conversation's input (functions named, not kept: their results
 * are in the steps' `calls`), the start on the runtime's clock (epoch ms; step `at` values are
 * relative to it) and its steps.
 */
export type Journal = z.infer<typeof journalFileSchema>;
