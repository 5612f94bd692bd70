import { randomBytes } from 'node:crypto';
import type { ActorRefLike, InspectionEvent } from 'xstate';
import type { Logger } from '../log.js';
import type { Runtime } from '../runtime.js';
import { wrapInput } from './inputCalls.js';
import { toPlain } from './plain.js';
import { registerDurable, type DurableJournal } from './durable.js';
import type { JournalBatch, JournalStore } from './store.js';
import { Spill } from './spill.js';
import type { JournalStep } from './step.js';
import { Tape, type RawStep } from './tape.js';

export interface RecorderOptions {
  store: JournalStore;
  /** The runtime's clock in ms (its SimulatedClock in tests); step times are measured on it. */
  now?: () => number;
  /** Wall clock for the ISO times of the header and the retention sweep. */
  wallClock?: () => Date;
  /** The surface a machine kind belongs to, for `palabre journal list --surface`; default: the kind. */
  surfaceOf?: (kind: string) => string;
  /** Steps are written at least this often (ms), and when their conversation ends. */
  flushMs?: number;
  /**
   * Steps are written before an effect leaves the process (core/journal/durable.ts): the default.
   * false: in batches only, a killed process then loses up to `flushMs` of steps (bench/journal-cost.ts
   * measures both).
   */
  durable?: boolean;
  /** Conversations whose last step is older than this are deleted by the sweep (0: never). */
  retentionDays?: number;
  /** How often the sweep runs (ms); it also runs once at attach. */
  sweepEveryMs?: number;
  logger?: Logger;
}

interface Live {
  id: string;
  systemId: string;
  kind: string;
  startMs: number;
  startedAt: string;
  input: unknown;
  tape?: Tape;
  steps: number;
  lastAt: string;
  endedAt: string | null;
  /** The header changed since the last flush. */
  dirty: boolean;
  /** The header row has been written. */
  stored?: boolean;
  /** The header is in the spill file. */
  spilledHeader?: boolean;
  /** The step in progress last written as `partial` (its number and how many actions it had): not written again unchanged. */
  partialSeq?: number;
  partialActions?: number;
}

interface Taken {
  batch: JournalBatch;
  /** The closed steps and touched conversations in it, put back when the write fails. */
  steps: Array<{ entry: Live; raw: RawStep }>;
  touched: Live[];
}

/** Most steps held in memory while the store does not take them (then the oldest are dropped and counted). */
const MAX_BUFFERED = 50_000;

/**
 * Records every conversation of a runtime: one Tape per conversation actor (a direct child of the
 * root), steps buffered in memory and written in batches (every `flushMs`, when a conversation
 * ends, on close), and at once when an edge is about to let an effect leave the process
 * (`persistNow`, core/journal/durable.ts): never a write per step.
 */
export class JournalRecorder implements DurableJournal {
  private readonly live = new Map<string, Live>();
  private readonly byRef = new Map<ActorRefLike, Live>();
  private readonly starting = new Map<string, Live>();
  private buffer: Array<{ entry: Live; raw: RawStep }> = [];
  private readonly touched = new Set<Live>();
  /** Conversations with an event open (being processed, or queued behind one): persistNow writes their step in progress. */
  private readonly busy = new Set<Live>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private detach: Array<() => void> = [];
  /** This recorder checkpoints the WAL itself (SQLite's automatic checkpoint is off). */
  private checkpoints = false;
  private spill: Spill | undefined;
  private readonly spilled = new WeakSet<RawStep>();
  private readonly plained = new WeakMap<RawStep, JournalStep>();
  /** Steps dropped because the store did not take them in time. */
  dropped = 0;
  private readonly now: () => number;
  private readonly wall: () => Date;

  constructor(private readonly runtime: Runtime, private readonly opts: RecorderOptions) {
    const clock = runtime.clock as { now?: () => number } | undefined;
    this.now = opts.now ?? (clock?.now ? () => clock.now!() : Date.now);
    this.wall = opts.wallClock ?? (() => new Date());
  }

  start(): this {
    this.detach.push(this.runtime.attachJournal((kind, systemId, input) => this.begin(kind, systemId, input)));
    this.detach.push(this.runtime.onInspect(this.onInspect));
    if (this.opts.durable !== false) {
      this.detach.push(registerDurable(this));
      const file = this.opts.store.file;
      if (file) {
        try {
          const n = this.opts.store.recoverSpills();
          if (n > 0) this.opts.logger?.info({ files: n }, 'journal: steps left by a process that was killed moved into the store');
        } catch (err) {
          this.opts.logger?.warn({ err: (err as Error).message }, 'journal: a spill file left by a killed process could not be read; it stays for the next start');
        }
        this.spill = new Spill(Spill.pathFor(file));
      }
    }
    // SQLite without its file (no spill): the durable write is a transaction, and the WAL
    // checkpoint is taken off it (see tick). With the spill, SQLite checkpoints as it always does.
    this.checkpoints = this.opts.store.synchronous && !this.opts.store.file && this.opts.durable !== false;
    if (this.checkpoints) void this.opts.store.deferCheckpoints(true).catch(() => undefined);
    this.timer = setInterval(() => void this.tick(), this.opts.flushMs ?? 1000);
    this.timer.unref();
    const days = this.opts.retentionDays ?? 0;
    if (days > 0) {
      const sweep = (): void => {
        this.opts.store.sweep(days, this.wall()).then(
          (n) => { if (n > 0) this.opts.logger?.info({ deleted: n, retentionDays: days }, 'journal: old conversations deleted'); },
          (err: unknown) => this.opts.logger?.warn({ err: (err as Error).message }, 'journal: retention sweep failed; it runs again later'),
        );
      };
      sweep();
      this.sweeper = setInterval(sweep, this.opts.sweepEveryMs ?? 6 * 3_600_000);
      this.sweeper.unref();
    }
    return this;
  }

  /** The journal id of a live or just-ended conversation, by systemId (tests, logs). */
  idOf(systemId: string): string | undefined {
    return this.live.get(systemId)?.id;
  }

  /** Called by the runtime before it starts a conversation: returns the input the actor gets. */
  private begin(kind: string, systemId: string, input: unknown): unknown {
    const startMs = this.now();
    const at = this.wall().toISOString();
    const entry: Live = { id: newId(kind), systemId, kind, startMs, startedAt: at, input: toPlain(input), steps: 0, lastAt: at, endedAt: null, dirty: true };
    this.starting.set(systemId, entry);
    return wrapInput(input, (fn, value) => entry.tape?.call(fn, value));
  }

  private readonly onInspect = (ev: InspectionEvent): void => {
    const ref = ev.actorRef;
    const entry = this.byRef.get(ref);
    if (entry) {
      entry.tape!.feed(ev);
      if (ev.type === '@xstate.event') this.busy.add(entry);
      else if (ev.type === '@xstate.snapshot' && entry.tape!.pending === 0) this.busy.delete(entry);
      if (ev.type === '@xstate.snapshot') {
        const status = (ev.snapshot as { status?: string }).status;
        if (status === 'done' || status === 'error') this.end(entry);
      }
      return;
    }
    if (ev.type === '@xstate.actor' && this.starting.size > 0) {
      const systemId = (ref as { options?: { systemId?: string } }).options?.systemId;
      const pending = systemId === undefined ? undefined : this.starting.get(systemId);
      if (pending && (ref as { _parent?: ActorRefLike })._parent === this.runtime.root) {
        this.starting.delete(systemId!);
        pending.tape = new Tape(ref, this.now, pending.startMs, (step) => this.onStep(pending, step));
        this.live.set(systemId!, pending);
        this.byRef.set(ref, pending);
        this.touched.add(pending);
      }
      return;
    }
    // The root's snapshot after a stop: conversations no longer in it have ended.
    if (ev.type === '@xstate.snapshot' && ref === this.runtime.root && this.live.size > 0) {
      const conversations = (ev.snapshot as { context?: { conversations?: Record<string, unknown> } }).context?.conversations ?? {};
      for (const [systemId, entry] of this.live) if (!(systemId in conversations)) this.end(entry);
    }
  };

  private onStep(entry: Live, raw: RawStep): void {
    entry.steps = raw.seq + 1;
    entry.dirty = true;
    this.touched.add(entry);
    if (this.buffer.length >= MAX_BUFFERED) {
      this.buffer.shift();
      this.dropped++;
    }
    this.buffer.push({ entry, raw });
  }

  private end(entry: Live): void {
    if (entry.endedAt) return;
    entry.endedAt = this.wall().toISOString();
    entry.dirty = true;
    this.touched.add(entry);
    if (this.live.get(entry.systemId) === entry) this.live.delete(entry.systemId);
    if (entry.tape) this.byRef.delete(entry.tape.ref);
    this.busy.delete(entry);
    void this.flush();
  }

  /** The timer's turn: the batch, then, when this recorder took the checkpoints over, the WAL checkpoint. */
  private async tick(): Promise<void> {
    await this.flush();
    // Every tick: the connection is shared, other stores' writes grow the WAL too.
    if (!this.checkpoints) return;
    await this.opts.store.checkpoint().catch((err: unknown) => this.opts.logger?.warn({ err: (err as Error).message }, 'journal: WAL checkpoint failed; it runs again at the next flush'));
  }

  /** Writes what is buffered; resolves once written (or once the failure is logged). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => {
      const batch = this.take(false);
      return batch ? this.write(batch) : undefined;
    });
    return this.flushing;
  }

  /**
   * Makes every step taken so far durable now, the one being processed included (written as
   * `partial`): called before an effect leaves the process (core/journal/durable.ts). On SQLite
   * the write is done when this returns; on Postgres it is queued after any write in flight and
   * the promise resolves once committed.
   */
  persistNow(): Promise<void> | undefined {
    if (this.buffer.length === 0 && this.busy.size === 0) return undefined;
    if (this.spill) {
      this.spillNow(this.spill);
      return undefined;
    }
    const batch = this.take(true);
    if (!batch) return undefined;
    if (this.opts.store.synchronous) {
      // The store's write has run by the time its promise exists (better-sqlite3 is synchronous).
      void this.write(batch);
      return undefined;
    }
    this.flushing = this.flushing.then(() => this.write(batch));
    return this.flushing;
  }

  /** The steps being processed, as far as they went, unless written so already. */
  private inProgress(): Array<{ entry: Live; raw: RawStep }> {
    const partials: Array<{ entry: Live; raw: RawStep }> = [];
    for (const entry of this.busy) {
      const raw = entry.tape?.partial();
      if (!raw || (raw.seq === entry.partialSeq && raw.actions.length === entry.partialActions)) continue;
      entry.partialSeq = raw.seq;
      entry.partialActions = raw.actions.length;
      partials.push({ entry, raw });
      if (raw.seq + 1 > entry.steps) {
        entry.steps = raw.seq + 1;
        entry.dirty = true;
        this.touched.add(entry);
      }
    }
    return partials;
  }

  /**
   * SQLite with its file known: the steps not yet spilled (the buffer's tail), the steps in
   * progress and the headers never written go to the spill file in one write(); they stay in the
   * buffer for the batch, which empties the file once committed (core/journal/spill.ts).
   */
  private spillNow(spill: Spill): void {
    const partials = this.inProgress();
    let from = this.buffer.length;
    while (from > 0 && !this.spilled.has(this.buffer[from - 1]!.raw)) from--;
    const steps = this.buffer.slice(from);
    const heads = [...this.touched].filter((e) => e.dirty && !e.stored && !e.spilledHeader);
    if (steps.length === 0 && partials.length === 0 && heads.length === 0) return;
    try {
      spill.append({ conversations: heads.map((e) => this.headerOf(e)), steps: [...steps, ...partials].map(({ entry, raw }) => ({ conversationId: entry.id, step: this.plainOf(entry, raw) })) });
      for (const { raw } of steps) this.spilled.add(raw);
      for (const e of heads) e.spilledHeader = true;
    } catch (err) {
      this.opts.logger?.warn({ err: (err as Error).message }, 'journal: spill write failed; the steps are written by the next batch');
    }
  }

  private headerOf(e: Live): JournalBatch['conversations'][number] {
    return { id: e.id, systemId: e.systemId, surface: this.opts.surfaceOf?.(e.kind) ?? e.kind, machine: e.kind, startedAt: e.startedAt, startMs: e.startMs, endedAt: e.endedAt, lastAt: e.lastAt, steps: e.steps, input: e.input };
  }

  /** A closed step made plain once: the spill and the batch write the same. */
  private plainOf(entry: Live, raw: RawStep): JournalStep {
    let step = this.plained.get(raw);
    if (!step) {
      step = entry.tape!.plain(raw);
      if (raw.status !== 'partial') this.plained.set(raw, step);
    }
    return step;
  }

  /** What is to be written, taken out of the buffer; with `open`, the steps being processed as `partial`. */
  private take(open: boolean): Taken | undefined {
    const partials = open ? this.inProgress() : [];
    // Written with the steps: a header not stored yet (a conversation must be found with its
    // steps), and, in a batch, the headers that changed. A stored header changed only in its count
    // and times waits for the next batch when an effect is leaving: that keeps the write made while
    // a reply waits small (the count is read back from the steps: JournalStore.list).
    const touched = [...this.touched].filter((e) => e.dirty && (!open || !e.stored));
    if (this.buffer.length === 0 && touched.length === 0 && partials.length === 0) return undefined;
    const steps = this.buffer;
    this.buffer = [];
    for (const e of touched) this.touched.delete(e);
    if (!open) this.touched.clear();
    const wallNow = this.wall().toISOString();
    const conversations = touched.map((e) => {
      e.dirty = false;
      e.stored = true;
      if (!e.endedAt) e.lastAt = wallNow;
      else e.lastAt = e.endedAt;
      return this.headerOf(e);
    });
    // Closed steps, then the ones in progress; a step in progress is rewritten whole when it ends.
    const rows = [...steps, ...partials].map(({ entry, raw }) => ({ conversationId: entry.id, step: this.plainOf(entry, raw) }));
    return { batch: { conversations, steps: rows }, steps, touched };
  }

  private async write({ batch, steps, touched }: Taken): Promise<void> {
    try {
      if (this.opts.store.synchronous) {
        // Committed before this returns, and the spill file emptied in the same run: nothing can
        // be spilled in between.
        this.opts.store.writeNow(batch);
        this.spill?.clear();
      } else await this.opts.store.write(batch);
    } catch (err) {
      // Kept for the next flush (bounded by MAX_BUFFERED): a store that is briefly away loses nothing.
      // Partial steps are not kept: their whole version is written once they end.
      this.buffer = [...steps, ...this.buffer];
      for (const e of touched) {
        e.dirty = true;
        e.stored = false;
        this.touched.add(e);
      }
      this.opts.logger?.warn({ err: (err as Error).message, steps: steps.length }, 'journal: write failed; retrying at the next flush');
    }
  }

  /** Stops recording and writes everything buffered. */
  async close(): Promise<void> {
    for (const d of this.detach.splice(0)) d();
    this.busy.clear();
    if (this.timer) clearInterval(this.timer);
    if (this.sweeper) clearInterval(this.sweeper);
    await this.flush();
    this.spill?.close();
    if (this.checkpoints) await this.opts.store.deferCheckpoints(false).catch(() => undefined);
  }
}

function newId(kind: string): string {
  return `${kind.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 12) || 'c'}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}
