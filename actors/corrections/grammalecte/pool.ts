import type { CheckResult, GrammarEngine, SidecarOptions, SidecarState } from './sidecar.js';
import { GrammalecteSidecar } from './sidecar.js';

/**
 * A few Grammalecte processes behind one `check`: each request goes to the least loaded running
 * process and waits its turn there (sidecar.ts queues, it never refuses for load). One process
 * checks one text at a time on one core; a second one halves the wait when many candidates finish
 * together, at ~100 MB of memory each (GRAMMALECTE_WORKERS; 1 suits a small board).
 */
export class GrammalectePool implements GrammarEngine {
  private readonly sidecars: GrammalecteSidecar[];

  constructor(opts: SidecarOptions & { size: number }) {
    const { size, ...one } = opts;
    this.sidecars = Array.from({ length: Math.max(1, size) }, () => new GrammalecteSidecar(one));
  }

  /** `ready` when one process is; otherwise the most advanced state of any of them. */
  get state(): SidecarState {
    const states = this.sidecars.map((s) => s.state);
    for (const s of ['ready', 'starting', 'failed'] as const) if (states.includes(s)) return s;
    return 'stopped';
  }

  get version(): string {
    return this.sidecars.find((s) => s.version)?.version ?? '';
  }

  get warmMs(): number {
    return Math.max(...this.sidecars.map((s) => s.warmMs));
  }

  get lastError(): string {
    return this.sidecars.find((s) => s.lastError)?.lastError ?? '';
  }

  get restarts(): number {
    return this.sidecars.reduce((n, s) => n + s.restarts, 0);
  }

  get size(): number {
    return this.sidecars.length;
  }

  /** Resolves when the first process is ready (it takes work at once); rejects only if none starts. */
  start(): Promise<void> {
    const starts = this.sidecars.map((s) => s.start());
    return Promise.any(starts).catch((err: unknown) => {
      throw err instanceof AggregateError && err.errors[0] instanceof Error ? err.errors[0] : new Error(String(err));
    });
  }

  check(text: string): Promise<CheckResult> {
    // A ready process first, else one that will take it (warming up, restarting), else any (it says why not).
    const ready = this.sidecars.filter((s) => s.state === 'ready');
    const accepting = this.sidecars.filter((s) => s.accepting());
    const candidates = ready.length > 0 ? ready : accepting.length > 0 ? accepting : this.sidecars;
    const target = candidates.reduce((best, s) => (s.load() < best.load() ? s : best));
    return target.check(text);
  }

  async stop(): Promise<void> {
    await Promise.all(this.sidecars.map((s) => s.stop()));
  }

  /** The first process's id (benchmarks read its memory; tests kill it to check the restart). */
  pid(): number | undefined {
    return this.sidecars[0]?.pid();
  }

  pids(): number[] {
    return this.sidecars.map((s) => s.pid()).filter((p): p is number => p !== undefined);
  }
}
