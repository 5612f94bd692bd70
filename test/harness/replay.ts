import { isDeepStrictEqual } from 'node:util';
import { SimulatedClock, createActor, type AnyActorRef, type AnyMachineSnapshot, type AnyStateMachine, type EventObject, type InputFrom, type InspectionEvent } from 'xstate';
import { Controls, settle } from './controls.js';
import type { MachineCoverage } from './modelCoverage.js';
import type { ModelPath } from './paths.js';

/**
 * Replays one generated path against a running actor of the production machine:
 * - `xstate.done.actor.X` / `xstate.error.actor.X` resolve / reject the controllable invocation X;
 * - an event pending in the actor system's scheduler (`xstate.after.*`, delayed raises) fires by
 *   advancing the SimulatedClock to its due time — the real timer, not an injected event;
 * - any other event is sent (through the transport when the spec's `start` gives a `send`).
 * After every step the actor's state must equal the model's.
 */
export interface StartContext<M extends AnyStateMachine> {
  /** The production machine with its invoked actors made controllable. */
  machine: M;
  input: InputFrom<M>;
  clock: SimulatedClock;
  /** Pass as the actor's (or runtime's) `inspect` option: coverage is read from it. */
  inspect: (event: InspectionEvent) => void;
  controls: Controls;
  onCleanup: (fn: () => unknown) => void;
}

export interface RunningActor {
  /** The actor running `machine`: its state is compared and its timers are looked up. */
  actor: AnyActorRef;
  /** How plain events reach it (e.g. an MQTT publish); default `actor.send`. */
  send?: (event: EventObject) => void | Promise<void>;
  stop?: () => void | Promise<void>;
  /** What the outside world observed on this path (messages published, calls made, rows stored), for the oracle. */
  world?: unknown;
  /** Resolves once what the actor sent so far has reached the world (e.g. a WebSocket ping/pong). */
  sync?: () => Promise<void>;
}

/**
 * What an oracle sees after each step: the events sent so far, what the world observed, the
 * controllable invocations (calls to the boundary, with their inputs). It states expectations
 * derived from the specs with `check`; each call counts as one oracle check.
 */
export interface OracleContext {
  variant: string;
  input: unknown;
  /** The path's events up to and including this step (without `xstate.init`). */
  events: EventObject[];
  step: number;
  /** True on the extra call made once the path's last step is replayed. */
  end: boolean;
  controls: Controls;
  world: unknown;
  /** The actor's snapshot (read only for what the outside could see, e.g. a final output). */
  snapshot: AnyMachineSnapshot;
  check(ok: boolean, message: string): void;
}

export type Oracle = (ctx: OracleContext) => void;

class OracleFailure extends Error {}

export interface ReplayFailure {
  variant: string;
  path: string;
  kind: ModelPath['kind'];
  step: number;
  message: string;
}

export interface ReplayOptions<M extends AnyStateMachine> {
  machine: M;
  variant: string;
  input: (ctx: { clock: SimulatedClock; onCleanup: (fn: () => unknown) => void }) => InputFrom<M>;
  /** Actor sources to replace by controllable ones. */
  controlled: readonly string[];
  start?: (ctx: StartContext<M>) => RunningActor | Promise<RunningActor>;
  /** What must match between the model and the actor after each step (default: the state value). */
  project: (snapshot: AnyMachineSnapshot) => unknown;
  /** Simulated ms between two steps (so that timers armed by different steps do not fire together). */
  stepMs: number;
  coverage: MachineCoverage;
  /** Expectations on what the world observed, checked after every step and at the end of the path. */
  oracle?: Oracle;
}

/** Due times of the scheduler's pending events, on the simulated clock. */
class Timers {
  private readonly due = new Map<string, number>();
  constructor(
    private readonly actor: AnyActorRef,
    private readonly clock: SimulatedClock,
  ) {}

  private scheduled() {
    return this.actor.system.getSnapshot()._scheduledEvents;
  }

  /** Call after every step: a new entry was scheduled now. */
  refresh(): void {
    const scheduled = this.scheduled();
    for (const [key, entry] of Object.entries(scheduled)) if (!this.due.has(key)) this.due.set(key, this.clock.now() + entry.delay);
    for (const key of [...this.due.keys()]) if (!(key in scheduled)) this.due.delete(key);
  }

  /** Earliest due time of a pending `event` aimed at the actor under test. */
  dueOf(event: EventObject): number | undefined {
    let best: number | undefined;
    for (const [key, entry] of Object.entries(this.scheduled())) {
      if (entry.target !== this.actor || !isDeepStrictEqual(entry.event, event)) continue;
      const due = this.due.get(key);
      if (due !== undefined && (best === undefined || due < best)) best = due;
    }
    return best;
  }
}

const DONE = 'xstate.done.actor.';
const ERROR = 'xstate.error.actor.';

export async function replayPath<M extends AnyStateMachine>(path: ModelPath, opts: ReplayOptions<M>): Promise<ReplayFailure | null> {
  const clock = new SimulatedClock();
  const controls = new Controls();
  const cleanups: Array<() => unknown> = [];
  const onCleanup = (fn: () => unknown) => cleanups.push(fn);
  const machine = opts.machine.provide({ actors: controls.actors(opts.controlled) }) as M;
  const inspect = opts.coverage.observer(machine);
  let running: RunningActor | undefined;
  let step = 0;
  const fail = (message: string): ReplayFailure => ({ variant: opts.variant, path: path.description, kind: path.kind, step, message });
  try {
    const input = opts.input({ clock, onCleanup });
    running = opts.start
      ? await opts.start({ machine, input, clock, inspect, controls, onCleanup })
      : { actor: createActor(machine, { input, clock, inspect }).start() };
    const { actor } = running;
    const send = running.send ?? ((event: EventObject) => actor.send(event));
    await settle();
    const timers = new Timers(actor, clock);
    timers.refresh();
    for (step = 0; step < path.steps.length; step++) {
      const { event, state } = path.steps[step]!;
      if (step > 0) {
        if (opts.stepMs > 0) {
          clock.increment(opts.stepMs);
          await settle();
          timers.refresh();
        }
        if (event.type.startsWith(DONE) || event.type.startsWith(ERROR)) {
          const done = event.type.startsWith(DONE);
          const id = event.type.slice((done ? DONE : ERROR).length);
          const invocation = controls.running(id);
          if (!invocation) return fail(`${event.type}: no invocation "${id}" is running`);
          if (done) invocation.resolve((event as EventObject & { output?: unknown }).output);
          else invocation.reject((event as EventObject & { error?: unknown }).error);
        } else {
          const due = timers.dueOf(event);
          if (due !== undefined) {
            clock.set(Math.max(due, clock.now()));
          } else {
            if (event.type.startsWith('xstate.after.')) opts.coverage.injectedAfterEvents++;
            await send(event);
          }
        }
        await settle();
        timers.refresh();
      }
      if (running.sync) await running.sync();
      if (state) {
        const actual = opts.project(actor.getSnapshot() as AnyMachineSnapshot);
        const expected = opts.project(state);
        if (!isDeepStrictEqual(actual, expected)) {
          return fail(`after ${event.type}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
        }
      }
      if (opts.oracle) askOracle(false);
    }
    if (opts.oracle) {
      step = path.steps.length - 1;
      askOracle(true);
    }
    return null;

    function askOracle(end: boolean): void {
      opts.oracle!({
        variant: opts.variant,
        input,
        events: path.steps.slice(1, step + 1).map((s) => s.event),
        step,
        end,
        controls,
        world: running!.world,
        snapshot: running!.actor.getSnapshot() as AnyMachineSnapshot,
        check: (ok, message) => {
          opts.coverage.oracleChecks++;
          if (!ok) throw new OracleFailure(message);
        },
      });
    }
  } catch (error) {
    if (error instanceof OracleFailure) return fail(`oracle${step === path.steps.length - 1 ? '' : ` after ${path.steps[step]!.event.type}`}: ${error.message}`);
    return fail(`threw: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  } finally {
    try {
      if (running?.stop) await running.stop();
      else running?.actor.stop?.();
    } finally {
      for (const fn of cleanups.reverse()) await fn();
    }
  }
}
