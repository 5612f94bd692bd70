import { createActor, fromPromise, type AnyActorLogic, type AnyActorRef, type AnyStateMachine, type InspectionEvent } from 'xstate';
import { compareSteps, isPartial, type StepDifference } from './compare.js';
import { CallFeed, reviveInput } from './inputCalls.js';
import { revive } from './plain.js';
import { ReplayClock } from './replayClock.js';
import type { Journal, JournalStep } from './step.js';
import { Tape } from './tape.js';

/**
 * What replay needs of a machine kind: today's chart, and the real versions of the input's
 * functions where the recorded results will not do (none by default: every function of the input
 * hands back what it returned when the conversation was recorded).
 */
export interface ReplayTarget {
  machine: AnyStateMachine;
  /** Today's version of what the recorded input carried from files (e.g. a prompt file's text). */
  input?: (recorded: unknown) => unknown;
  functions?: Readonly<Record<string, (...args: unknown[]) => unknown>>;
}

/** By machine kind (the machine registry, or the surfaces' declarations): core imports no surface. */
export type ReplayLookup = (kind: string) => Promise<ReplayTarget | undefined>;

export interface Divergence extends StepDifference {
  /** The step's number in the journal. */
  step: number;
  /** The recorded step (what the conversation did then). */
  expectedStep: JournalStep;
  /** What today's chart did at that step, or undefined when it took no step at all. */
  gotStep: JournalStep | undefined;
}

export interface ReplayResult {
  id: string;
  machine: string;
  same: boolean;
  /** Steps compared (all of them when `same`). */
  steps: number;
  /**
   * The journal ends with a step the process was killed in the middle of (`status: partial`): it
   * was compared up to its last recorded action, and what today's chart does after is not.
   */
  partial?: boolean;
  divergence?: Divergence;
}

/**
 * A real timer can fire a little late (a busy event loop), never early: a recorded event that came
 * less than this after a timer was due may have come before it.
 */
const TIMER_SLACK_MS = 250;

const INERT = new WeakSet<AnyActorLogic>();

/** An actor that does nothing and never finishes: what it returned comes from the journal. */
function inert(): AnyActorLogic {
  const logic = fromPromise(() => new Promise<never>(() => {}));
  INERT.add(logic);
  return logic;
}

function isMachine(logic: unknown): logic is AnyStateMachine {
  return typeof logic === 'object' && logic !== null && 'root' in logic && 'implementations' in logic && typeof (logic as { provide?: unknown }).provide === 'function';
}

/** The srcs the chart invokes (state nodes' `invoke`), at any depth. */
function invokedSrcs(machine: AnyStateMachine): Set<string> {
  const out = new Set<string>();
  const walk = (node: { invoke?: Array<{ src?: unknown }>; states?: Record<string, unknown> }): void => {
    for (const inv of node.invoke ?? []) if (typeof inv.src === 'string') out.add(inv.src);
    for (const child of Object.values(node.states ?? {})) walk(child as typeof node);
  };
  walk(machine.root as unknown as Parameters<typeof walk>[0]);
  return out;
}

/**
 * Today's chart made safe to replay: every invoked actor and every actor that is not a chart is
 * inert (its outcomes are fed from the journal); charts spawned into the context (a circuit
 * breaker the chart reads) run for real, being pure; named effects are recorded, not done.
 */
function replayable(machine: AnyStateMachine): AnyStateMachine {
  const invoked = invokedSrcs(machine);
  const actors: Record<string, AnyActorLogic> = {};
  for (const [src, logic] of Object.entries(machine.implementations.actors ?? {})) {
    actors[src] = isMachine(logic) && !invoked.has(src) ? replayable(logic) : inert();
  }
  const actions: Record<string, () => void> = {};
  for (const [name, action] of Object.entries(machine.implementations.actions ?? {})) {
    // XState's own actions (assign, raise, sendTo, enqueueActions…) are the chart's logic: kept.
    if (typeof action === 'function' && !('resolve' in action)) actions[name] = () => {};
  }
  return machine.provide({ actors, actions } as Parameters<AnyStateMachine['provide']>[0]);
}

/**
 * Rebuilds a recorded conversation with `target.machine` and compares it step by step: the same
 * events in the same order (edge events and what inert actors returned, fed from the journal;
 * timers fired by the chart itself on a replay clock), then, at each step, the event processed,
 * the state reached, the actions done (with their params) and the actors started (with their
 * input: a prompt change shows as a different model request).
 */
export function replayJournal(journal: Journal, target: ReplayTarget): ReplayResult {
  const recorded = journal.steps;
  const base = { id: journal.id, machine: journal.machine };
  if (recorded.length === 0) return { ...base, same: true, steps: 0 };
  const clock = new ReplayClock(journal.startMs + recorded[0]!.at);
  const feed = new CallFeed();
  feed.load(recorded[0]!.calls);
  const produced: JournalStep[] = [];
  let tape: Tape | undefined;
  // The conversation's parent, as the runtime's root was: a chart may send to it (a claim).
  const root: { ref?: AnyActorRef } = {};
  const inspect = (ev: InspectionEvent): void => {
    if (!tape && ev.type === '@xstate.actor' && root.ref && (ev.actorRef as { _parent?: unknown })._parent === root.ref) {
      tape = new Tape(ev.actorRef, () => clock.now(), journal.startMs, (s) => produced.push(tape!.plain(s)));
    }
    tape?.feed(ev);
  };
  const parent = createActor(inert(), { clock, inspect });
  root.ref = parent;
  const input = reviveInput(target.input ? target.input(journal.input) : journal.input, feed, target.functions ?? {});
  const actor = createActor(replayable(target.machine), { input, parent } as Parameters<typeof createActor>[1]);
  try {
    actor.start();
    for (let k = 0; k < recorded.length; k++) {
      const r = recorded[k]!;
      if (k > 0 && produced.length <= k) {
        feed.load(r.calls);
        if (r.from === 'self' || isLiveChild(actor, r.from)) {
          while (produced.length <= k && clock.fireNext()) { /* until the chart takes its step */ }
        } else {
          const due = journal.startMs + r.at - TIMER_SLACK_MS;
          while (produced.length <= k && (clock.nextDue() ?? Infinity) <= due) clock.fireNext();
          if (produced.length <= k) {
            clock.set(journal.startMs + r.at);
            actor.send(revive(r.event) as JournalStep['event']);
          }
        }
      }
      const got = produced[k];
      if (!got) return { ...base, same: false, steps: k, divergence: { step: k, field: 'event', path: '', expected: r.event.type, got: undefined, expectedStep: r, gotStep: undefined } };
      const diff = compareSteps(r, got);
      if (diff) return { ...base, same: false, steps: k, divergence: { step: k, ...diff, expectedStep: r, gotStep: got } };
    }
    if (isPartial(recorded[recorded.length - 1]!)) return { ...base, same: true, steps: recorded.length, partial: true };
    if (produced.length > recorded.length) {
      const extra = produced[recorded.length]!;
      return { ...base, same: false, steps: recorded.length, divergence: { step: recorded.length, field: 'event', path: '', expected: undefined, got: extra.event.type, expectedStep: { ...extra, event: { type: '(none)' }, actions: [], invoked: [] }, gotStep: extra } };
    }
    return { ...base, same: true, steps: recorded.length };
  } finally {
    // A child cannot be stopped on its own; nothing it holds outlives it (inert actors, a clock that never fires alone).
    parent.stop();
  }
}

/** Events from a child that runs for real in replay (a chart spawned into context) are not fed: it sends them itself. */
function isLiveChild(actor: AnyActorRef, from: string): boolean {
  if (!from.startsWith('child:')) return false;
  const children = (actor.getSnapshot() as { children?: Record<string, AnyActorRef | undefined> }).children ?? {};
  const child = children[from.slice('child:'.length)] as (AnyActorRef & { logic?: AnyActorLogic }) | undefined;
  return child !== undefined && child.logic !== undefined && !INERT.has(child.logic);
}
