import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../core/worker.js';

/**
 * Session recordings on a worker thread (actors/t2/recordingWorker.ts).
 *
 * The main thread only queues each chunk (with its arrival time), and every FLUSH_MS copies the
 * queue into one buffer and posts it — transferred, not cloned — to one worker shared by all
 * sessions. There each chunk is appended to its session's journal (recordingJournal.ts), and the
 * WAV is assembled from the journal when the session closes: the resampling and mixing run once,
 * after the real-time part, with each chunk placed at the arrival time taken here, so the file is
 * sample-for-sample what an in-thread recorder would write.
 *
 * Why a timer and not one message per event-loop turn: at 200 sessions the loop turns thousands of
 * times a second, and each postMessage has a fixed cost (serialising, waking the worker) that the
 * profile of bench/t2-sessions.ts showed at ~7 % of the main thread. 50 messages a
 * second carry the same bytes for a fiftieth of that. A close is posted at the next turn, so
 * the end of a session never waits for the timer.
 */

/** Longest a recorded chunk waits on the main thread before it is posted to the worker. */
const FLUSH_MS = 20;

/** Opens and closes (a few per session): objects, each placed before the chunk record `at`. */
export type RecordingControl =
  | { op: 'open'; id: number; at: number; path: string; atMs: number }
  | { op: 'close'; id: number; at: number }
  /** A recording a crash left (its journal, or an older WAV): made a valid WAV (recovery.ts). */
  | { op: 'recover'; id: number; at: number; path: string };

/**
 * Chunk records (50 a second per voice and session): CHUNK_FIELDS numbers each in one transferred
 * Float64Array — voice (0 candidate, 1 interlocutor), recording id, arrival time (ms), offset and
 * length in the batch's bytes. Objects here cost a structured clone and garbage per chunk.
 */
export const CHUNK_FIELDS = 5;
/** Smallest batch buffer taken: 50 ms of one session's two voices. */
const MIN_STAGING = 4096;

export interface RecordingBatch {
  control: RecordingControl[];
  records: ArrayBuffer;
  count: number;
  buf: ArrayBuffer;
}

export type RecordingReply =
  | { op: 'closed'; id: number; path: string | null; bytes: number; durationMs: number }
  | { op: 'error'; id: number; message: string }
  | { op: 'recovered'; id: number; bytes: number | null; error?: string };

export interface ClosedRecording {
  path: string | null;
  bytes: number;
  durationMs: number;
  /**
   * Not assembled: the thread was stopped (or died) first. The journal is left on disk for the
   * next start; a session saved pending stays pending (docs/operations.md § Stop).
   */
  unfinished?: true;
}

export interface RecordingThreadOptions {
  /**
   * Tests only: the worker blocks this long before each assembly, as a slow disk or a loaded
   * machine would (test/t2/persistence.test.ts: a drain with more to assemble than its budget;
   * test/t2/recordingThread.test.ts: a close written while an earlier assembly is held).
   */
  assemblyDelayMs?: number;
}

/** What the worker gets at its start (workerData). */
export interface RecordingWorkerData {
  assemblyDelayMs: number;
}

/** One recording as the session sees it: PCM16 LE bytes in, the file's facts out. */
export interface ThreadRecording {
  candidate(pcm: Uint8Array): void;
  interlocutor(pcm: Uint8Array): void;
  close(): Promise<ClosedRecording>;
}


export class RecordingThread {
  private worker: Worker | undefined;
  private control: RecordingControl[] = [];
  private records = new Float64Array(CHUNK_FIELDS * 1024);
  private count = 0;
  /**
   * The batch's bytes, copied in as each chunk arrives (a chunk's buffer belongs to the socket:
   * kept until the flush, each one held the socket's read buffer and was one more young object
   * for every scavenge to trace). The whole buffer is transferred at the flush and a new one
   * taken, sized from the last batch; not zero-filled, since only the bytes written are read.
   */
  private staging: Uint8Array = Buffer.allocUnsafeSlow(MIN_STAGING);
  private queuedBytes = 0;
  private scheduled: 'timer' | 'turn' | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly closing = new Map<number, (r: ClosedRecording) => void>();
  private readonly onError = new Map<number, (err: Error) => void>();
  private readonly recovering = new Map<number, { resolve: (bytes: number | null) => void; reject: (err: Error) => void }>();
  private seq = 0;
  private drained: (() => void) | undefined;

  constructor(private readonly now: () => number = Date.now, private readonly opts: RecordingThreadOptions = {}) {}

  /**
   * Starts the thread now if it is not running: called when an audio session is wired, before its
   * first chunk. Starting a worker (a new isolate, its modules loaded and compiled) costs CPU
   * once — ≈ 200 ms of the thread's samples under tsx in the profile of bench/t2-sessions.ts —
   * and, started by the first chunk, it ran on the audio path and inside the first sessions'
   * streaming (bench/journal/2026-12-performance.md, T2).
   */
  prepare(): void {
    this.ensureWorker();
  }

  /** Starts a recording (the file is created on the worker); `onError` reports a failure once. */
  open(path: string, onError: (err: Error) => void): ThreadRecording {
    const id = ++this.seq;
    this.onError.set(id, onError);
    this.push({ op: 'open', id, at: this.count, path, atMs: this.now() });
    return {
      candidate: (pcm) => this.chunk(0, id, pcm),
      interlocutor: (pcm) => this.chunk(1, id, pcm),
      close: () =>
        new Promise<ClosedRecording>((resolve) => {
          this.closing.set(id, resolve);
          this.push({ op: 'close', id, at: this.count });
        }),
    };
  }

  /**
   * Makes the recording a crash left at `path` a valid WAV, on the recording thread (assembling a
   * journal is the whole session's resampling and mixing: it must not stall an event loop that
   * forwards other sessions' audio). The data bytes, or null when there is no recording.
   */
  recover(path: string): Promise<number | null> {
    const id = ++this.seq;
    return new Promise<number | null>((resolve, reject) => {
      this.recovering.set(id, { resolve, reject });
      this.push({ op: 'recover', id, at: this.count, path });
    });
  }

  private chunk(voice: 0 | 1, id: number, pcm: Uint8Array): void {
    let r = this.records;
    const at = this.count * CHUNK_FIELDS;
    if (at + CHUNK_FIELDS > r.length) {
      r = new Float64Array(r.length * 2);
      r.set(this.records);
      this.records = r;
    }
    r[at] = voice;
    r[at + 1] = id;
    r[at + 2] = this.now();
    r[at + 3] = this.queuedBytes;
    r[at + 4] = pcm.byteLength;
    this.count++;
    const end = this.queuedBytes + pcm.byteLength;
    if (end > this.staging.byteLength) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(end, this.staging.byteLength * 2));
      bigger.set(this.staging.subarray(0, this.queuedBytes));
      this.staging = bigger;
    }
    this.staging.set(pcm, this.queuedBytes);
    this.queuedBytes = end;
    if (this.scheduled) return;
    this.scheduled = 'timer';
    this.timer = setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Opens and closes go out at the next event-loop turn (with the chunks queued before them). */
  private push(op: RecordingControl): void {
    this.control.push(op);
    if (this.scheduled === 'turn') return;
    clearTimeout(this.timer);
    this.scheduled = 'turn';
    setImmediate(() => this.flush());
  }

  /** One message per FLUSH_MS (or per turn with an open or a close), whatever the number of sessions. */
  private flush(): void {
    clearTimeout(this.timer);
    this.scheduled = undefined;
    if (this.control.length === 0 && this.count === 0) return;
    const buf = this.staging.buffer as ArrayBuffer;
    const records = this.records.slice(0, this.count * CHUNK_FIELDS).buffer;
    const batch: RecordingBatch = { control: this.control, records, count: this.count, buf };
    this.staging = Buffer.allocUnsafeSlow(Math.max(MIN_STAGING, Math.ceil(this.queuedBytes * 1.25)));
    this.control = [];
    this.count = 0;
    this.queuedBytes = 0;
    const worker = this.ensureWorker();
    worker.postMessage(batch, [buf, records]);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const workerData: RecordingWorkerData = { assemblyDelayMs: this.opts.assemblyDelayMs ?? 0 };
    const worker = startWorker(import.meta.url, 'recordingWorker', { workerData });
    worker.unref(); // never what keeps the process alive
    worker.on('message', (r: RecordingReply) => {
      if (r.op === 'recovered') {
        const waiting = this.recovering.get(r.id);
        this.recovering.delete(r.id);
        if (r.error !== undefined) waiting?.reject(new Error(r.error));
        else waiting?.resolve(r.bytes);
        return;
      }
      if (r.op === 'error') {
        this.onError.get(r.id)?.(new Error(r.message));
        this.onError.delete(r.id);
        return;
      }
      this.onError.delete(r.id);
      const done = this.closing.get(r.id);
      this.closing.delete(r.id);
      done?.({ path: r.path, bytes: r.bytes, durationMs: r.durationMs });
      if (this.closing.size === 0) this.drained?.();
    });
    const lost = (err: Error): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      // Every recording in flight is lost; each session goes on (and is saved) without its file.
      for (const [, report] of this.onError) report(err);
      this.onError.clear();
      for (const [, done] of this.closing) done({ path: null, bytes: 0, durationMs: 0, unfinished: true });
      this.closing.clear();
      for (const [, waiting] of this.recovering) waiting.reject(err);
      this.recovering.clear();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`recording thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  /** Stops the worker, once the recordings being closed are finished (at most `graceMs`). */
  async stop(graceMs = 2000): Promise<void> {
    if (this.closing.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (this.drained = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
    }
    clearTimeout(this.timer); // chunks of sessions never closed: nothing will read them
    const w = this.worker;
    this.worker = undefined;
    for (const [, done] of this.closing) done({ path: null, bytes: 0, durationMs: 0, unfinished: true });
    this.closing.clear();
    // Left as they are: the next start recovers them again.
    for (const [, waiting] of this.recovering) waiting.reject(new Error('recording thread stopped'));
    this.recovering.clear();
    if (w) await w.terminate();
  }
}
