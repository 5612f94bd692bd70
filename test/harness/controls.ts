import { fromPromise, type AnyActorLogic } from 'xstate';

/**
 * Controllable stand-ins for a machine's invoked actors: each invocation waits until the test
 * resolves or rejects it, and exposes the input it got and the AbortSignal the machine aborts
 * when it leaves the invoking state.
 */
export interface Invocation {
  /** Actor id, i.e. the invoke id (`generate` → events `xstate.done.actor.generate`). */
  id: string;
  /** The actor source name it replaced. */
  src: string;
  input: unknown;
  signal: AbortSignal;
  settled: boolean;
  resolve(output: unknown): void;
  reject(error: unknown): void;
}

export class Controls {
  readonly invocations: Invocation[] = [];

  /** A fromPromise logic for `src` that parks each invocation here. */
  logic(src: string): AnyActorLogic {
    return fromPromise<unknown, unknown>(
      ({ input, signal, self }) =>
        new Promise((resolve, reject) => {
          const invocation: Invocation = {
            id: self.id,
            src,
            input,
            signal,
            settled: false,
            resolve: (output) => {
              invocation.settled = true;
              resolve(output);
            },
            reject: (error) => {
              invocation.settled = true;
              reject(error);
            },
          };
          this.invocations.push(invocation);
        }),
    );
  }

  /** Logic for every name in `srcs`, ready for `machine.provide({actors})`. */
  actors(srcs: readonly string[]): Record<string, AnyActorLogic> {
    return Object.fromEntries(srcs.map((src) => [src, this.logic(src)]));
  }

  /** The latest invocation with this id that is still running (not settled, not aborted). */
  running(id: string): Invocation | undefined {
    for (let i = this.invocations.length - 1; i >= 0; i--) {
      const inv = this.invocations[i]!;
      if (inv.id === id && !inv.settled && !inv.signal.aborted) return inv;
    }
    return undefined;
  }

  /** Invocations with this id, oldest first. */
  all(id: string): Invocation[] {
    return this.invocations.filter((inv) => inv.id === id);
  }
}

/** Lets promise callbacks and the actors' mailboxes drain (no timer involved: time is simulated). */
export async function settle(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  await new Promise<void>((resolve) => setImmediate(resolve));
}
