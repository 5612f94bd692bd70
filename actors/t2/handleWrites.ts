/**
 * Gemini Live's resumption handles, written in one transaction per interval instead of one commit
 * each. Gemini sends a handle after every turn, and when many sessions' turns end in the same
 * moment, one synchronous SQLite commit per handle held the event loop long enough to delay the
 * candidates' audio (bench/t2-ratio.ts, upward chunk latency p99). A stored handle is read only when
 * another instance takes the session over; one not yet written leaves the previous handle, which
 * still resumes the Live session (or, refused, the new session is primed with the transcript). A
 * drain writes what is pending before it hands sessions over.
 */
export class HandleWrites {
  private readonly pending = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (entries: ReadonlyArray<readonly [sessionId: string, handle: string]>) => Promise<void>,
    private readonly everyMs: number,
    private readonly onError: (err: unknown, sessions: number) => void,
  ) {}

  /** Keeps the session's newest handle; written within `everyMs`. */
  save(sessionId: string, handle: string): void {
    this.pending.set(sessionId, handle);
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), this.everyMs);
    this.timer.unref();
  }

  /** Writes every pending handle now (one transaction); resolves once written or logged as failed. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const entries = [...this.pending];
    this.pending.clear();
    await this.write(entries).catch((err: unknown) => this.onError(err, entries.length));
  }
}
