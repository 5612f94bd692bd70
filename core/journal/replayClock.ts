/**
 * The clock replay runs the conversation on. XState asks it for timeouts (its `after` delays,
 * delayed raises and sends); replay decides when they fire: when the journal says a timer fired,
 * or when a recorded event comes after a timer was due (the recorded conversation had no such
 * timer then: replay shows the extra step). A timer never fires on its own.
 */
export class ReplayClock {
  private t: number;
  private seq = 0;
  private readonly timers = new Map<number, { due: number; fn: () => void }>();

  constructor(startMs: number) {
    this.t = startMs;
  }

  now(): number {
    return this.t;
  }

  set(ms: number): void {
    if (ms > this.t) this.t = ms;
  }

  setTimeout(fn: (...args: unknown[]) => void, ms: number): number {
    const id = ++this.seq;
    this.timers.set(id, { due: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(id: unknown): void {
    this.timers.delete(id as number);
  }

  /** Due time of the earliest pending timer, or undefined. */
  nextDue(): number | undefined {
    let best: number | undefined;
    for (const { due } of this.timers.values()) if (best === undefined || due < best) best = due;
    return best;
  }

  /** Fires the earliest pending timer (time moves to its due time); false when none is pending. */
  fireNext(): boolean {
    let bestId: number | undefined;
    let best: { due: number; fn: () => void } | undefined;
    for (const [id, timer] of this.timers) if (!best || timer.due < best.due) [bestId, best] = [id, timer];
    if (!best) return false;
    this.timers.delete(bestId!);
    this.set(best.due);
    best.fn();
    return true;
  }
}
