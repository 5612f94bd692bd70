import type { Logger } from './log.js';

/**
 * Engines several surfaces share (the Grammalecte processes corrections and T2 both grade with).
 * A surface's stop drains its own work only; these stop after every surface has drained, so that
 * no surface loses an engine while it still finishes a candidate's work (T2 grades its drained
 * sessions after the corrections surface has stopped taking requests).
 */
export interface SharedEngines {
  /**
   * The engine called `name`: created by the first surface that asks, the same instance for every
   * other; `stop` runs once, after every surface has drained (or at the shutdown deadline).
   */
  shared<T>(name: string, create: () => T, stop: (engine: T) => Promise<void>): T;
  /** `stop` runs once, after every surface has drained (or at the shutdown deadline). */
  register(name: string, stop: () => Promise<void>): void;
}

export class EngineSet implements SharedEngines {
  private readonly engines: Array<{ name: string; stop: () => Promise<void> }> = [];
  private stopped: Promise<void> | undefined;

  private readonly instances = new Map<string, unknown>();

  constructor(private readonly logger?: Logger) {}

  shared<T>(name: string, create: () => T, stop: (engine: T) => Promise<void>): T {
    if (this.instances.has(name)) return this.instances.get(name) as T;
    const engine = create();
    this.instances.set(name, engine);
    this.register(name, () => stop(engine));
    return engine;
  }

  register(name: string, stop: () => Promise<void>): void {
    this.engines.push({ name, stop });
  }

  /** Stops every engine (in parallel, each failure logged); idempotent. */
  stop(): Promise<void> {
    this.stopped ??= Promise.all(
      this.engines.map(async ({ name, stop }) => {
        try {
          await stop();
        } catch (err) {
          this.logger?.warn({ err: (err as Error).message, engine: name }, 'shared engine stop failed');
        }
      }),
    ).then(() => undefined);
    return this.stopped;
  }
}
