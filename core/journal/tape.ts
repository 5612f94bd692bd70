import type { ActorRefLike, InspectionEvent } from 'xstate';
import { toPlain, type ActorNamer } from './plain.js';
import type { JournalAction, JournalInvoke, JournalStep } from './step.js';

/**
 * Turns one actor's inspection events into journal steps. The recorder (core/journal/recorder.ts)
 * runs one per live conversation; replay (core/journal/replay.ts) runs one on the rebuilt actor,
 * so that both sides of the comparison are made by the same code.
 *
 * XState reports an event when it is sent (`@xstate.event`), the actions while the actor processes
 * it (`@xstate.action`), then the snapshot (`@xstate.snapshot`). Events sent while another is being
 * processed wait in the actor's mailbox, first in first out: so do they here, and actions belong to
 * the oldest event not yet closed by its snapshot.
 */
interface Open {
  step: RawStep;
  event: unknown;
}

/**
 * A step as XState handed it over: references to its event, params and state, made plain JSON
 * later (`plain`), off the path of the reply: the recorder does it when it writes. XState's events,
 * params and snapshots are not mutated once handed over, so a reference kept until then is safe.
 */
export interface RawStep {
  seq: number;
  at: number;
  from: string;
  event: { type: string };
  actions: Array<{ type: string; params: unknown }>;
  calls?: Array<{ fn: string; value: unknown }>;
  state: unknown;
  status: string;
}

export class Tape {
  private readonly open: Open[] = [];
  private seq = 0;
  /** Calls made before any event is open (the context built before `xstate.init`). */
  private early: Array<{ fn: string; value: unknown }> = [];

  constructor(
    readonly ref: ActorRefLike,
    private readonly now: () => number,
    private readonly startMs: number,
    private readonly onStep: (step: RawStep) => void,
  ) {}

  /** True when the event concerns this tape's actor (it then consumed it). */
  feed(ev: InspectionEvent): boolean {
    if (ev.actorRef !== this.ref) return false;
    switch (ev.type) {
      case '@xstate.event': {
        // The start's input is the journal's header: not copied into its first step.
        const event = ev.event.type === 'xstate.init' ? { type: 'xstate.init' } : ev.event;
        const step: RawStep = { seq: -1, at: this.now() - this.startMs, from: this.fromOf(ev.sourceRef, ev.event.type), event, actions: [], state: null, status: 'active' };
        if (this.early.length > 0 && this.open.length === 0) {
          step.calls = this.early;
          this.early = [];
        }
        this.open.push({ step, event: ev.event });
        return true;
      }
      case '@xstate.action': {
        this.open[0]?.step.actions.push({ type: ev.action.type, params: ev.action.params });
        return true;
      }
      case '@xstate.snapshot': {
        const head = this.open[0];
        if (!head) return true;
        // A snapshot that is not the head's (XState reports the initial one again on start) closes nothing else.
        if (head.event !== ev.event) return true;
        this.open.shift();
        const snap = ev.snapshot as { value?: unknown; status?: string };
        head.step.seq = this.seq++;
        head.step.state = snap.value ?? null;
        head.step.status = snap.status ?? 'active';
        this.onStep(head.step);
        return true;
      }
      default:
        return true;
    }
  }

  /** A function of the conversation's input returned `value`: kept with the step being processed. */
  call(fn: string, value: unknown): void {
    const head = this.open[0];
    const call = { fn, value };
    if (head) (head.step.calls ??= []).push(call);
    else this.early.push(call);
  }

  /** Steps sent but never processed (the actor stopped first) are not steps: they changed nothing. */
  get pending(): number {
    return this.open.length;
  }

  /**
   * The step being processed now, as far as it went (its event and the actions done so far), with
   * the number it will get: an effect leaving in the middle of its step is written with it
   * (core/journal/durable.ts). Undefined when no event is open.
   */
  partial(): RawStep | undefined {
    const head = this.open[0];
    if (!head) return undefined;
    return { ...head.step, seq: this.seq, actions: [...head.step.actions], state: null, status: 'partial' };
  }

  /** The step as the journal keeps it: plain JSON, secrets redacted, actors named, spawns apart. */
  plain(raw: RawStep): JournalStep {
    const step: JournalStep = { seq: raw.seq, at: raw.at, from: raw.from, event: toPlain(raw.event, this.name) as JournalStep['event'], actions: [], invoked: [], state: toPlain(raw.state, this.name), status: raw.status };
    for (const a of raw.actions) addAction(step, a.type, a.params, this.name);
    if (raw.calls) step.calls = raw.calls.map((c) => ({ fn: c.fn, value: toPlain(c.value, this.name) }));
    return step;
  }

  /**
   * Actors named relative to the conversation: `self`, `parent` (the runtime's root), a child by
   * its id (an invoke's id is the chart's); any other by its id, unless that is a session number
   * (`x:12`), which differs from one run to the next.
   */
  private readonly name = (ref: { id: string }): string => {
    if ((ref as unknown) === this.ref) return 'self';
    const parent = (ref as { _parent?: unknown })._parent;
    if (ref === (this.ref as { _parent?: unknown })._parent) return 'parent';
    if (parent === this.ref) return ref.id;
    return /^x:\d+$/.test(ref.id) ? 'x' : ref.id;
  };

  private fromOf(source: ActorRefLike | undefined, type: string): string {
    if (type === 'xstate.init') return 'init';
    if (!source) return 'edge';
    if (source === this.ref) return 'self';
    if ((source as { _parent?: ActorRefLike })._parent === this.ref) return `child:${(source as { id?: string }).id ?? '?'}`;
    return 'edge';
  }
}

function addAction(step: JournalStep, type: string, params: unknown, name: ActorNamer): void {
  if (type === 'xstate.spawnChild') {
    const p = (params ?? {}) as { id?: unknown; src?: unknown; input?: unknown; actorRef?: { id?: string } };
    const invoke: JournalInvoke = {
      id: typeof p.id === 'string' ? p.id : p.actorRef?.id ?? '',
      src: typeof p.src === 'string' ? p.src : p.actorRef?.id ?? 'inline',
    };
    if (p.input !== undefined) invoke.input = toPlain(p.input, name);
    step.invoked.push(invoke);
    return;
  }
  const action: JournalAction = { type };
  if (params !== undefined) action.params = toPlain(params, name);
  step.actions.push(action);
}
