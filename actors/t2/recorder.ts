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
  private pending = new Float64Array(RECORDING_RATE);
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
    const from = at - this.flushed;
    const need = from + samples.length;
    if (need > this.pending.length) {
      const bigger = new Float64Array(Math.max(need, this.pending.length * 2));
      bigger.set(this.pending);
      this.pending = bigger;
    }
    for (let i = 0; i < samples.length; i++) this.pending[from + i]! += samples[i]!;
    this.flush(this.nowSample());
  }

  /** Writes every sample before `upTo` (timeline index) and forgets it. */
  private flush(upTo: number): void {
    const count = upTo - this.flushed;
    if (count <= 0) return;
    const out = new Int16Array(count);
    const avail = Math.min(count, this.pending.length);
    for (let i = 0; i < avail; i++) {
      const v = Math.round(this.pending[i]!);
      out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
    }
    this.writer.write(out);
    if (count >= this.pending.length) this.pending.fill(0);
    else {
      this.pending.copyWithin(0, count);
      this.pending.fill(0, this.pending.length - count);
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
