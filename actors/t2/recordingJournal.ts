import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { SessionRecorder } from './audioRecorder.js';
import { pcm16FromBytes } from './resampler.js';
import { repairWav } from './wavWriter.js';

/**
 * A session's recording while it runs: the chunks as they arrived, raw, in a journal file next
 * to the WAV (`<session>.wav.journal`); the WAV is assembled from it once, when the session ends.
 *
 * Why: resampling the candidate to 24 kHz, mixing both voices and rounding them was most of the
 * recording's CPU (≈ 7–8 µs per candidate chunk at 200 sessions, bench/journal/2026-12-performance.md, on "T2: the recording assembled at the end"),
 * spent while every session streams. Appending a chunk here is a copy; the same work runs at the
 * end, after the real-time part, by replaying the journal through SessionRecorder with each
 * chunk's arrival time as its clock — so the file is byte for byte what a recorder fed live
 * writes (test/t2/recordingThread.test.ts). Work moved, not removed: see the bench for both.
 *
 * Format: a 16-byte header ("PALREC01", the open time in ms as a float64 LE), then one record per
 * chunk: voice (u8: 0 candidate, 1 interlocutor), 3 bytes of padding, the PCM byte length (u32
 * LE), the arrival time in ms (float64 LE), the PCM16 LE bytes. A crash leaves a journal whose
 * last record may be cut: it is dropped, the rest assembled (`recoverRecording`).
 */

const JOURNAL_SUFFIX = '.journal';
const MAGIC = 'PALREC01';
const HEADER = 16;
const RECORD = 16;
/**
 * A session's journal is written when it holds this much: ≤ 0.5 s of candidate audio (16 kHz
 * PCM16), less of model audio, is what a crash can lose — the bound the WAV's 0.5 s write batch
 * gave before (docs/operations.md).
 */
export const JOURNAL_BLOCK = 16_000;

export function journalPathOf(wavPath: string): string {
  return wavPath + JOURNAL_SUFFIX;
}

/** Appends chunks to one session's journal (synchronous writes: used on the recording thread). */
export class JournalWriter {
  private readonly buf = Buffer.allocUnsafeSlow(2 * JOURNAL_BLOCK + RECORD);
  private used = 0;
  private closed = false;

  private constructor(readonly path: string, private readonly fd: number) {}

  /** Creates the journal (folder 0700 when created, file 0600: candidates' voices). Throws on a disk error. */
  static create(wavPath: string, openMs: number): JournalWriter {
    mkdirSync(dirname(wavPath), { recursive: true, mode: 0o700 });
    const path = journalPathOf(wavPath);
    const w = new JournalWriter(path, openSync(path, 'w', 0o600));
    // Written at once: a crash before the first block still leaves a journal that assembles (empty).
    w.buf.write(MAGIC, 0, 'ascii');
    w.buf.writeDoubleLE(openMs, 8);
    w.used = HEADER;
    try {
      w.writeOut();
    } catch (err) {
      w.discard();
      throw err;
    }
    return w;
  }

  /** One chunk: `voice` 0 candidate (16 kHz), 1 interlocutor (24 kHz). Throws on a disk error. */
  append(voice: 0 | 1, atMs: number, pcm: Uint8Array): void {
    const need = RECORD + pcm.byteLength;
    if (this.used + need > this.buf.length) this.writeOut();
    if (need > this.buf.length) {
      // Larger than the block (a long model message): header and bytes written as they are.
      this.header(voice, atMs, pcm.byteLength);
      this.writeOut();
      this.put(pcm);
      return;
    }
    this.header(voice, atMs, pcm.byteLength);
    this.buf.set(pcm, this.used);
    this.used += pcm.byteLength;
    if (this.used >= JOURNAL_BLOCK) this.writeOut();
  }

  private header(voice: 0 | 1, atMs: number, length: number): void {
    const b = this.buf;
    const o = this.used;
    b[o] = voice;
    b[o + 1] = 0;
    b[o + 2] = 0;
    b[o + 3] = 0;
    b.writeUInt32LE(length, o + 4);
    b.writeDoubleLE(atMs, o + 8);
    this.used = o + RECORD;
  }

  private writeOut(): void {
    if (this.used === 0) return;
    this.put(this.buf.subarray(0, this.used));
    this.used = 0;
  }

  private put(bytes: Uint8Array): void {
    for (let o = 0; o < bytes.byteLength; ) o += writeSync(this.fd, bytes, o, bytes.byteLength - o);
  }

  /** Writes what is buffered and closes the file (once, even when the write fails). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.writeOut();
    } finally {
      closeSync(this.fd);
    }
  }

  /** A failed recording: the file closed and deleted. */
  discard(): void {
    if (!this.closed) {
      this.closed = true;
      try {
        closeSync(this.fd);
      } catch {
        // already unusable
      }
    }
    rmSync(this.path, { force: true });
  }
}

export interface AssembledRecording {
  path: string;
  bytes: number;
  durationMs: number;
}

/**
 * Writes the WAV at `wavPath` from its journal (the resampling, mixing and rounding of the whole
 * session), then deletes the journal. Null when there is no journal (a session discarded meanwhile,
 * or assembled already). A record cut by a crash is dropped with everything after it.
 */
export async function assembleRecording(wavPath: string): Promise<AssembledRecording | null> {
  const path = journalPathOf(wavPath);
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (data.length < HEADER) {
    // Created, then a crash before its header reached the disk: nothing was recorded.
    rmSync(path, { force: true });
    return null;
  }
  if (data.toString('ascii', 0, 8) !== MAGIC) throw new Error(`${path}: not a recording journal`);
  const openMs = data.readDoubleLE(8);
  if (!Number.isFinite(openMs)) throw new Error(`${path}: not a recording journal (bad open time)`);
  let clock = openMs;
  const rec = SessionRecorder.create(wavPath, () => clock, { syncWrites: true });
  for (let o = HEADER; o + RECORD <= data.length; ) {
    const length = data.readUInt32LE(o + 4);
    const from = o + RECORD;
    if (from + length > data.length) break;
    const at = data.readDoubleLE(o + 8);
    // A record that cannot be one we wrote (a block a power cut left zero-filled or torn, a disk
    // error) ends the journal like a cut record: read on, a garbage arrival time would have the
    // recorder write hours of silence before it.
    if (!plausibleRecord(data[o]!, length, at, openMs)) break;
    clock = at;
    const pcm = pcm16FromBytes(data.subarray(from, from + length));
    if (data[o] === 0) rec.candidate(pcm);
    else rec.interlocutor(pcm);
    o = from + length;
  }
  const closed = await rec.close();
  rmSync(path, { force: true });
  return closed;
}

/** How far a record's arrival time may lie from the journal's open time (a session lasts minutes). */
const MAX_SKEW_MS = 24 * 3600_000;

function plausibleRecord(voice: number, length: number, atMs: number, openMs: number): boolean {
  return (voice === 0 || voice === 1) && length % 2 === 0 && Number.isFinite(atMs) && Math.abs(atMs - openMs) <= MAX_SKEW_MS;
}

/**
 * A recording left by a crash (recovery.ts): assembled from its journal when there is one, else
 * a WAV from before journals had its header sizes repaired. Returns the data bytes, or null when
 * there is nothing.
 */
export async function recoverRecording(wavPath: string): Promise<number | null> {
  const assembled = await assembleRecording(wavPath);
  if (assembled) return assembled.bytes;
  return repairWav(wavPath);
}
