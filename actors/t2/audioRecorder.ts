import { Resampler16to24, toPcm16 } from './resampler.js';
import { WavFileWriter } from './wavWriter.js';

const RECORDING_RATE = 24000;
/**
 * Candidate audio is resampled in batches of this many 16 kHz samples (100 ms, five 20 ms
 * chunks): the filter, mixing and file work run once per batch instead of once per chunk. Each
 * chunk keeps its own place on the timeline; the timeline is not written past a chunk still
 * waiting in the batch, and model audio drains the batch first, so the hold-back stays ≤ 100 ms.
 */
const CANDIDATE_BATCH = 1600;

/**
 * One chronological mono 24 kHz recording of both voices (docs/t2-live.md#the-recording).
 *
 * Each voice is placed at its arrival time on one timeline (a voice that arrives faster than real
 * time — Gemini sends bursts — is laid end to end after its previous chunk). Arrival times only
 * grow, so every sample before "now" is final: it is mixed, written to disk and dropped. Memory
 * holds only what lies ahead of now (at most one model reply), never the whole session.
 */
export class SessionRecorder {
  private readonly resampler = new Resampler16to24();
  /** Mix of the samples from `flushed` on (Float64: sums of two voices before clipping). */
  private pending = new Float64Array(RECORDING_RATE / 4);
  /** Index in `pending` of timeline sample `flushed`, and one past the last sample placed. */
  private head = 0;
  private end = 0;
  private flushed = 0;
  private candidateEnd = 0;
  private interlocutorEnd = 0;
  /** Candidate chunks queued in the resampler: where each run of them goes, and its length (24 kHz). */
  private readonly batchAt: number[] = [];
  private readonly batchLen: number[] = [];
  private readonly startMs: number;

  private constructor(private readonly writer: WavFileWriter, private readonly now: () => number) {
    this.startMs = now();
  }

  /** `syncWrites`: the file written with writeSync (on the recording thread: wavWriter.ts). */
  static create(path: string, now: () => number = Date.now, opts: { syncWrites?: boolean } = {}): SessionRecorder {
    return new SessionRecorder(WavFileWriter.create(path, RECORDING_RATE, { sync: opts.syncWrites === true }), now);
  }

  get path(): string {
    return this.writer.path;
  }

  private nowSample(): number {
    return Math.floor(((this.now() - this.startMs) * RECORDING_RATE) / 1000);
  }

  /** Candidate audio, PCM16 mono 16 kHz. */
  candidate(pcm16k: Int16Array): void {
    const now = this.nowSample();
    const at = Math.max(now, this.candidateEnd, this.flushed);
    // Its place is fixed now (arrival time); its samples come out of the next batch.
    const n = this.resampler.enqueue(pcm16k);
    const last = this.batchAt.length - 1;
    if (last >= 0 && this.batchAt[last]! + this.batchLen[last]! === at) this.batchLen[last]! += n;
    else {
      this.batchAt.push(at);
      this.batchLen.push(n);
    }
    this.candidateEnd = at + n;
    if (this.resampler.pending >= CANDIDATE_BATCH) this.drainCandidate();
    this.flush(this.flushLimit(now));
  }

  /** Interlocutor audio, PCM16 mono 24 kHz. */
  interlocutor(pcm24k: Int16Array): void {
    this.drainCandidate();
    const now = this.nowSample();
    const at = Math.max(now, this.interlocutorEnd, this.flushed);
    this.place(at, pcm24k);
    this.interlocutorEnd = at + pcm24k.length;
    this.flush(now);
  }

  /**
   * Resamples the queued candidate chunks at once and places each run where it arrived. The
   * filter's outputs are rounded to PCM16 (`toPcm16`, what `drain` would return) and added to the
   * mix in the same pass: no array of samples in between.
   */
  private drainCandidate(): void {
    if (this.batchAt.length === 0) return;
    const raw = this.resampler.drainRaw();
    let o = 0;
    for (let i = 0; i < this.batchAt.length; i++) {
      const len = this.batchLen[i]!;
      const base = this.reserveAt(this.batchAt[i]!, len);
      const pending = this.pending;
      for (let k = 0; k < len; k++) pending[base + k]! += toPcm16(raw[o + k]!);
      o += len;
    }
    this.batchAt.length = 0;
    this.batchLen.length = 0;
  }

  /** Nothing at or after a queued candidate chunk's place is final yet. */
  private flushLimit(now: number): number {
    return this.batchAt.length > 0 ? Math.min(now, this.batchAt[0]!) : now;
  }

  private place(at: number, samples: Int16Array): void {
    const base = this.reserveAt(at, samples.length);
    const pending = this.pending;
    for (let i = 0; i < samples.length; i++) pending[base + i]! += samples[i]!;
  }

  /** Room in `pending` for `length` samples at timeline index `at`: their index there. */
  private reserveAt(at: number, length: number): number {
    const from = this.head + (at - this.flushed);
    if (from + length > this.pending.length) this.grow(from + length);
    const base = this.head + (at - this.flushed);
    this.end = Math.max(this.end, base + length);
    return base;
  }

  /** Compacts the live region to the front, doubling the buffer if that is not enough. */
  private grow(need: number): void {
    const live = this.end - this.head;
    const required = need - this.head;
    const size = required > this.pending.length / 2 ? Math.max(required * 2, this.pending.length * 2) : this.pending.length;
    const next = size === this.pending.length ? this.pending : new Float64Array(size);
    if (next === this.pending) {
      this.pending.copyWithin(0, this.head, this.end);
      this.pending.fill(0, live, this.end);
    } else next.set(this.pending.subarray(this.head, this.end));
    this.pending = next;
    this.end = live;
    this.head = 0;
  }

  /**
   * Writes every sample before `upTo` (timeline index) and forgets it. The live region moves
   * forward by an index (no copy per chunk); it is compacted only when the buffer is full.
   */
  private flush(upTo: number): void {
    const count = upTo - this.flushed;
    if (count <= 0) return;
    // Rounded straight into the file's write batch when it fits (no array and copy per chunk).
    const inPlace = this.writer.reserve(count);
    const out = inPlace ?? new Int16Array(count);
    const avail = Math.max(0, Math.min(count, this.end - this.head));
    const pending = this.pending;
    const head = this.head;
    // The mix holds sums of PCM16 samples (whole numbers): only clipped here.
    for (let i = 0; i < avail; i++) out[i] = toPcm16(pending[head + i]!);
    pending.fill(0, head, head + avail);
    if (inPlace) {
      if (avail < count) inPlace.fill(0, avail); // silence after the last sample placed
      this.writer.commit(count);
    } else this.writer.write(out);
    this.head += avail;
    if (this.head >= this.end) {
      this.head = 0;
      this.end = 0;
    }
    this.flushed = upTo;
  }

  /** Writes what is left (up to the end of the later voice) and finalizes the WAV header. */
  async close(): Promise<{ path: string; bytes: number; durationMs: number }> {
    this.drainCandidate();
    this.flush(Math.max(this.candidateEnd, this.interlocutorEnd, this.flushed));
    const bytes = await this.writer.close();
    return { path: this.writer.path, bytes, durationMs: Math.round((bytes / 2 / RECORDING_RATE) * 1000) };
  }
}
