import type { Logger } from '../../core/log.js';

/**
 * One session's store writes, in the order the chart asked for them. The chart's persist actions
 * are synchronous; the store is async (a Postgres pool would run two writes on two connections,
 * in any order: a turn before its row, a discard before the open). A write starts at once when
 * none is pending — on SQLite it then completes in the calling tick, as before the store port —
 * else after the pending one. A failed write is logged and does not stop the next.
 */
export class OrderedWrites {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  constructor(private readonly log: Logger) {}

  run(failure: string, write: () => Promise<void>): void {
    const guarded = async (): Promise<void> => {
      try {
        await write();
      } catch (err) {
        this.log.error({ err: (err as Error).message }, failure);
      } finally {
        this.pending--;
      }
    };
    this.pending++;
    this.tail = this.pending === 1 ? guarded() : this.tail.then(guarded);
  }

  /** Resolves once every write asked for so far has completed (or failed). */
  idle(): Promise<void> {
    return this.tail;
  }
}
