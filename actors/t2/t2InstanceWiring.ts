import { createActor, fromCallback, fromPromise, waitFor, type Actor, type ActorOptions, type InspectionEvent } from 'xstate';
import { isFenced, isStopped, isStopping, t2InstanceMachine, type DrainInput, type RenewalOutcome, type SweepInput, type TickEvent } from '../../machines/t2Instance.js';

/** Where this instance's claims stand (actors/t2/claims.ts). */
interface InstanceClaims {
  readonly renewEveryMs: number;
  fenced(): boolean;
  expiresInMs(): number;
  renew(): Promise<void>;
}

/** What the T2 instance chart's actors do, supplied by the surface. */
export interface T2InstancePorts {
  claims: InstanceClaims;
  /** Stops the live sessions unsaved (close 1011), returns their ids. */
  interrupt: () => string[];
  /** The recordings the last drain left pending, once at start. */
  finaliseAtStart: () => Promise<void>;
  /** One sweep after a renewal that reached the store. */
  sweep: (input: SweepInput) => Promise<void>;
  drainSessions: (input: DrainInput) => Promise<void>;
  /** How many other instances are alive and can take sessions over (0: drain alone). */
  otherInstances: () => Promise<number>;
  finishDrain: (input: DrainInput) => Promise<void>;
  /** A renewal or a sweep failed: logged, retried at the next tick. */
  warn: (err: unknown, msg: string) => void;
}

/** The chart with its actors: the one place the T2 instance lifecycle is wired. */
export function provideT2Instance(ports: T2InstancePorts) {
  const { claims } = ports;
  return t2InstanceMachine.provide({
    actors: {
      // A timer, not an `after`: the renewal period must keep its phase across fences.
      ticks: fromCallback<TickEvent>(({ sendBack }) => {
        const timer = setInterval(() => sendBack({ type: 'tick', claimsAtRisk: claims.fenced(), expiresInMs: claims.expiresInMs() }), claims.renewEveryMs);
        timer.unref();
        return () => clearInterval(timer);
      }),
      finaliseAtStart: fromPromise(() => ports.finaliseAtStart().catch((err: unknown) => ports.warn(err, 't2 pending recordings not assembled: retried at the next start'))),
      renewClaims: fromPromise<RenewalOutcome>(async () => {
        try {
          await claims.renew();
          return { reached: true, claimsAtRisk: claims.fenced() };
        } catch (err) {
          ports.warn(err, 't2 sweep failed: retried');
          return { reached: false, claimsAtRisk: claims.fenced() };
        }
      }),
      sweep: fromPromise<void, SweepInput>(({ input }) => ports.sweep(input).catch((err: unknown) => ports.warn(err, 't2 sweep failed: retried'))),
      lateTickWatch: fromPromise<{ claimsAtRisk: boolean }, { expiresInMs: number }>(
        ({ input, signal }) =>
          new Promise((resolve) => {
            const timer = setTimeout(() => resolve({ claimsAtRisk: claims.fenced() }), Math.max(0, input.expiresInMs / 2));
            timer.unref();
            signal.addEventListener('abort', () => clearTimeout(timer));
          }),
      ),
      stopSessions: fromPromise<string[]>(async () => ports.interrupt()),
      drainSessions: fromPromise<void, DrainInput>(({ input }) => ports.drainSessions(input)),
      otherInstances: fromPromise<number>(() => ports.otherInstances()),
      finishDrain: fromPromise<void, DrainInput>(({ input }) => ports.finishDrain(input)),
    },
  });
}

export type T2InstanceMachine = ReturnType<typeof provideT2Instance>;

/** A running T2 instance, read through the chart's selectors. */
export interface T2Instance {
  actor: Actor<T2InstanceMachine>;
  fenced(): boolean;
  stopping(): boolean;
  /** Drains once (later calls get the same promise) and resolves when the chart is `stopped`. */
  stop(deadlineAt: number): Promise<void>;
}

export function startT2Instance(machine: T2InstanceMachine, opts: { clock?: ActorOptions<T2InstanceMachine>['clock']; inspect?: (e: InspectionEvent) => void; now?: () => number } = {}): T2Instance {
  const actor = createActor(machine, { ...(opts.clock ? { clock: opts.clock } : {}), ...(opts.inspect ? { inspect: opts.inspect } : {}) }).start();
  const now = opts.now ?? Date.now;
  let stopped: Promise<void> | undefined;
  return {
    actor,
    fenced: () => isFenced(actor.getSnapshot()),
    stopping: () => isStopping(actor.getSnapshot()),
    stop(deadlineAt) {
      stopped ??= (async () => {
        actor.send({ type: 'stop', startedAt: now(), deadlineAt });
        await waitFor(actor, isStopped, { timeout: Infinity });
        actor.stop();
      })();
      return stopped;
    },
  };
}
