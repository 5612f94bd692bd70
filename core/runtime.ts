import { createActor, type Actor, type ActorOptions, type AnyActorLogic, type AnyActorRef, type InspectionEvent } from 'xstate';

type Clock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;
import { rootMachine, type ConversationEntry } from './rootMachine.js';

export type InspectListener = (event: InspectionEvent) => void;
/** The journal's hook (core/journal/recorder.ts): told of each start, it returns the input the actor gets. */
export type JournalHook = (kind: string, systemId: string, input: unknown) => unknown;

export interface RuntimeOptions {
  /** SimulatedClock in tests. */
  clock?: Clock;
}

/**
 * The one actor system of the process. Transports start a conversation here, address it by
 * `systemId`, and stop it when their socket or device goes away (a systemId is released only when
 * its actor is stopped). Inspection listeners (the /inspect page, metrics, Stately) subscribe here.
 */
export class Runtime {
  readonly root: Actor<typeof rootMachine>;
  /** The system's clock when one was given (SimulatedClock in tests), for actors run beside the root. */
  readonly clock: Clock | undefined;
  private readonly listeners = new Set<InspectListener>();
  /** The system-level inspection subscription, held only while there are listeners. */
  private inspection: { unsubscribe(): void } | undefined;
  private journal: JournalHook | undefined;

  constructor(opts: RuntimeOptions = {}) {
    // No `inspect` option: XState then builds no inspection event at all (its system checks its
    // observer set first), which matters on hot paths. The fan-out subscribes on the first
    // listener and unsubscribes after the last (see onInspect).
    this.clock = opts.clock;
    this.root = createActor(rootMachine, opts.clock ? { clock: opts.clock } : {});
    this.root.start();
  }

  private fanOut = (event: InspectionEvent): void => {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // An inspector must never break a conversation.
      }
    }
  };

  /** Spawns a conversation; returns its actor. Throws if the systemId is taken. */
  start<TLogic extends AnyActorLogic>(kind: string, systemId: string, logic: TLogic, input?: unknown): AnyActorRef {
    if (this.get(systemId)) throw new Error(`conversation ${systemId} already exists`);
    if (this.journal) input = this.journal(kind, systemId, input);
    this.root.send({ type: 'conversation.start', systemId, kind, logic, input, at: Date.now() });
    const ref = this.get(systemId);
    if (!ref) throw new Error(`conversation ${systemId} did not start`);
    return ref;
  }

  get(systemId: string): AnyActorRef | undefined {
    return this.root.getSnapshot().context.conversations[systemId]?.ref;
  }

  stop(systemId: string): void {
    this.root.send({ type: 'conversation.stop', systemId });
  }

  list(): Array<{ systemId: string } & ConversationEntry> {
    return Object.entries(this.root.getSnapshot().context.conversations).map(([systemId, e]) => ({ systemId, ...e }));
  }

  /** Live conversations per machine kind (for /healthz and /metrics). */
  countByKind(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { kind } of this.list()) counts[kind] = (counts[kind] ?? 0) + 1;
    return counts;
  }

  onInspect(listener: InspectListener): () => void {
    this.listeners.add(listener);
    this.inspection ??= this.root.system.inspect(this.fanOut);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.inspection) {
        this.inspection.unsubscribe();
        this.inspection = undefined;
      }
    };
  }

  /** Records every conversation started from now on (one journal per runtime); returns the detach. */
  attachJournal(hook: JournalHook): () => void {
    this.journal = hook;
    return () => {
      if (this.journal === hook) this.journal = undefined;
    };
  }

  /** Stops every conversation, then the root. Calling it again does nothing. */
  shutdown(): void {
    if (this.root.getSnapshot().status === 'stopped') return;
    for (const { systemId } of this.list()) this.stop(systemId);
    this.root.stop();
  }
}
