import { Resampler16to24 } from './resampler.js';
import { WavFileWriter } from './wavWriter.js';

export const RECORDING_RATE = 24000;

/**
 * One chronological mono 24 kHz recording of both voices (spec §6 steps 9–10, §7 step 17).
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
  private readonly startMs: number;

  private constructor(private readonly writer: WavFileWriter, private readonly now: () => number) {
    this.startMs = now();
  }

  static create(path: string, now: () => number = Date.now): SessionRecorder {
    return new SessionRecorder(WavFileWriter.create(path, RECORDING_RATE), now);
  }

  get path(): string {
    return this.writer.path;
  }

  private nowSample(): number {
    return Math.floor(((this.now() - this.startMs) * RECORDING_RATE) / 1000);
  }

  /** Candidate audio, PCM16 mono 16 kHz. */
  candidate(pcm16k: Int16Array): void {
    const at = Math.max(this.nowSample(), this.candidateEnd, this.flushed);
    const pcm24 = this.resampler.push(pcm16k);
    this.place(at, pcm24);
    this.candidateEnd = at + pcm24.length;
  }

  /** Interlocutor audio, PCM16 mono 24 kHz. */
  interlocutor(pcm24k: Int16Array): void {
    const at = Math.max(this.nowSample(), this.interlocutorEnd, this.flushed);
    this.place(at, pcm24k);
    this.interlocutorEnd = at + pcm24k.length;
  }

  private place(at: number, samples: Int16Array): void {
    const from = this.head + (at - this.flushed);
    const need = from + samples.length;
    if (need > this.pending.length) this.grow(need);
    const base = this.head + (at - this.flushed);
    for (let i = 0; i < samples.length; i++) this.pending[base + i]! += samples[i]!;
    this.end = Math.max(this.end, base + samples.length);
    this.flush(this.nowSample());
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
    const out = new Int16Array(count);
    const avail = Math.max(0, Math.min(count, this.end - this.head));
    for (let i = 0; i < avail; i++) {
      const v = Math.round(this.pending[this.head + i]!);
      out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
    }
    this.pending.fill(0, this.head, this.head + avail);
    this.writer.write(out);
    this.head += avail;
    if (this.head >= this.end) {
      this.head = 0;
      this.end = 0;
    }
    this.flushed = upTo;
  }

  /** Writes what is left (up to the end of the later voice) and finalizes the WAV header. */
  async close(): Promise<{ path: string; bytes: number; durationMs: number }> {
    this.flush(Math.max(this.candidateEnd, this.interlocutorEnd, this.flushed));
    const bytes = await this.writer.close();
    return { path: this.writer.path, bytes, durationMs: Math.round((bytes / 2 / RECORDING_RATE) * 1000) };
  }
}
