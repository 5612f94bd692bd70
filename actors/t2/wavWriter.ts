import { closeSync, createWriteStream, mkdirSync, openSync, writeSync, type WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';

/** A canonical 44-byte RIFF/WAVE header for PCM16 mono. */
export function wavHeader(sampleRate: number, dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16); // fmt chunk size
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * 2, 28); // byte rate
  h.writeUInt16LE(2, 32); // block align
  h.writeUInt16LE(16, 34); // bits per sample
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/**
 * Streams PCM16 mono samples to a WAV file as they come: a header with sizes 0 first, the data
 * appended through a WriteStream (nothing held whole in memory), then the two sizes patched in
 * place on `close()`.
 *
 * `sync: true` (the recording thread, actors/t2/recordingWorker.ts): the same bytes written with
 * `writeSync` on the file's descriptor. That thread forwards no audio, so a write blocking it
 * for the page cache's few microseconds delays nothing; the WriteStream cost, per 0.5 s batch, a
 * copy of the batch, the stream's bookkeeping, a hop to libuv's thread pool and a wake-up of the
 * thread on completion — at 200 sessions, 400 batches a second (bench/journal/2026-12-performance.md, T2).
 */
export class WavFileWriter {
  private stream: WriteStream | undefined;
  private fd: number | undefined;
  private bytes = 0;
  private closed = false;
  private readonly batch: Uint8Array;
  /** The same bytes as samples, for `reserve`. */
  private readonly batchSamples: Int16Array;
  private batchUsed = 0;
  private failure: Error | undefined;

  private constructor(readonly path: string, readonly sampleRate: number) {
    this.batch = new Uint8Array(sampleRate); // 0.5 s of PCM16 mono
    this.batchSamples = new Int16Array(this.batch.buffer);
  }

  /** Synchronous so a recording can start inside a statechart action; the writes are async unless `sync`. */
  static create(path: string, sampleRate: number, opts: { sync?: boolean } = {}): WavFileWriter {
    // Recordings are candidates' voices: this user only (folder 0700 when created, file 0600).
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const w = new WavFileWriter(path, sampleRate);
    if (opts.sync) {
      w.fd = openSync(path, 'w', 0o600);
      w.put(wavHeader(sampleRate, 0));
      return w;
    }
    w.stream = createWriteStream(path, { mode: 0o600 });
    // A disk error (full, unwritable path) must not crash the process: it is kept, further
    // writes are dropped, and close() rejects with it.
    w.stream.on('error', (err) => (w.failure ??= err));
    w.stream.write(wavHeader(sampleRate, 0));
    return w;
  }

  get dataBytes(): number {
    return this.bytes;
  }

  write(samples: Int16Array): void {
    if (this.closed || this.failure || samples.length === 0) return;
    // Batched: one file write per ~0.5 s of audio instead of one per 20 ms chunk (bounded memory).
    if (this.batchUsed + samples.byteLength > this.batch.length) this.drainBatch();
    if (samples.byteLength > this.batch.length) {
      if (this.fd !== undefined) this.put(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength));
      else this.stream!.write(Buffer.from(samples.buffer.slice(samples.byteOffset, samples.byteOffset + samples.byteLength)));
    } else {
      this.batch.set(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength), this.batchUsed);
      this.batchUsed += samples.byteLength;
    }
    this.bytes += samples.byteLength;
  }

  /**
   * Room for the next `count` samples inside the write batch, to be filled in place and then
   * appended by `commit(count)`: what `write` does without the caller's array and its copy. Its
   * contents are whatever was there before. Undefined when the file takes no more samples or
   * when they would not fit in a batch (then use `write`).
   */
  reserve(count: number): Int16Array | undefined {
    if (this.closed || this.failure || count * 2 > this.batch.length) return undefined;
    if (this.batchUsed + count * 2 > this.batch.length) this.drainBatch();
    const at = this.batchUsed / 2;
    return this.batchSamples.subarray(at, at + count);
  }

  /** Appends the `count` samples last reserved. */
  commit(count: number): void {
    this.batchUsed += count * 2;
    this.bytes += count * 2;
  }

  private drainBatch(): void {
    if (this.batchUsed === 0) return;
    // The stream keeps what it is given until written: a copy. writeSync is done on return.
    if (this.fd !== undefined) this.put(this.batch.subarray(0, this.batchUsed));
    else this.stream!.write(Buffer.from(this.batch.subarray(0, this.batchUsed)));
    this.batchUsed = 0;
  }

  /** Sync mode: appends all of `bytes`; a failure is kept as the stream's 'error' would be. */
  private put(bytes: Uint8Array): void {
    if (this.failure) return;
    try {
      for (let o = 0; o < bytes.byteLength; ) o += writeSync(this.fd!, bytes, o, bytes.byteLength - o);
    } catch (err) {
      this.failure = err as Error;
    }
  }

  /** Sync mode: the sizes patched in place, then the descriptor closed (even after a failure). */
  private closeSync(): number {
    const fd = this.fd!;
    try {
      this.drainBatch();
      if (this.failure) throw this.failure;
      const sizes = Buffer.alloc(4);
      sizes.writeUInt32LE(36 + this.bytes, 0);
      writeSync(fd, sizes, 0, 4, 4);
      sizes.writeUInt32LE(this.bytes, 0);
      writeSync(fd, sizes, 0, 4, 40);
    } finally {
      closeSync(fd);
    }
    return this.bytes;
  }

  async close(): Promise<number> {
    if (this.closed) return this.bytes;
    if (this.fd !== undefined) {
      this.closed = true;
      return this.closeSync();
    }
    this.closed = true;
    if (this.failure) throw this.failure;
    this.drainBatch();
    const stream = this.stream!;
    if (this.failure) throw this.failure;
    await new Promise<void>((resolve, reject) => {
      stream.once('error', reject);
      stream.end(() => resolve());
    });
    const fh = await open(this.path, 'r+');
    try {
      const sizes = Buffer.alloc(4);
      sizes.writeUInt32LE(36 + this.bytes, 0);
      await fh.write(sizes, 0, 4, 4);
      sizes.writeUInt32LE(this.bytes, 0);
      await fh.write(sizes, 0, 4, 40);
    } finally {
      await fh.close();
    }
    return this.bytes;
  }
}

/**
 * Makes a WAV cut short by a crash valid again: the header written at the start still says 0
 * bytes of data. The sizes are set to what reached the disk (an odd trailing byte, half a
 * sample, is dropped). Returns the data bytes, or null when there is no file or not even a header.
 */
export async function repairWav(path: string): Promise<number | null> {
  let fh;
  try {
    fh = await open(path, 'r+');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const { size } = await fh.stat();
    if (size < 44) return null;
    const data = (size - 44) & ~1;
    if (44 + data !== size) await fh.truncate(44 + data);
    const sizes = Buffer.alloc(4);
    sizes.writeUInt32LE(36 + data, 0);
    await fh.write(sizes, 0, 4, 4);
    sizes.writeUInt32LE(data, 0);
    await fh.write(sizes, 0, 4, 40);
    return data;
  } finally {
    await fh.close();
  }
}
