import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionRecorder } from '../../actors/t2/audioRecorder.js';
import { RecordingThread } from '../../actors/t2/recordingThread.js';
import { pcm16FromBytes } from '../../actors/t2/resampler.js';
import { WavFileWriter } from '../../actors/t2/wavWriter.js';
import { JOURNAL_BLOCK, JournalWriter, journalPathOf, recoverRecording } from '../../actors/t2/recordingJournal.js';

/** Random chunks as a live session sends them: candidate 20 ms at 16 kHz, model bursts at 24 kHz. */
function* chunks(steps: number, start: number): Generator<{ at: number; voice: 0 | 1; bytes: Buffer }> {
  let seed = 7;
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  let at = start;
  for (let step = 0; step < steps; step++) {
    at += [0, 20, 20, 35, 90][Math.floor(rand() * 5)]!;
    const voice = rand() < 0.7 ? 0 : 1;
    const bytes = Buffer.alloc(voice === 0 ? 640 : 1920 * (1 + Math.floor(rand() * 3)));
    for (let i = 0; i < bytes.length; i += 2) bytes.writeInt16LE(Math.floor(rand() * 20000) - 10000, i);
    yield { at, voice, bytes };
  }
}

describe('recording on a worker thread', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('writes, byte for byte, the file an in-thread recorder writes from the same chunks and arrival times', async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-rthread-'));
    let now = 5000;
    const thread = new RecordingThread(() => now);
    const errors: Error[] = [];
    const remote = thread.open(join(dir, 'thread.wav'), (e) => errors.push(e));
    const local = SessionRecorder.create(join(dir, 'local.wav'), () => now);
    let seed = 3;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let step = 0; step < 300; step++) {
      now += [0, 20, 20, 35, 90][Math.floor(rand() * 5)]!;
      const candidate = rand() < 0.7;
      const bytes = Buffer.alloc(candidate ? 640 : 1920 * (1 + Math.floor(rand() * 3)));
      for (let i = 0; i < bytes.length; i += 2) bytes.writeInt16LE(Math.floor(rand() * 20000) - 10000, i);
      if (candidate) {
        remote.candidate(bytes);
        local.candidate(pcm16FromBytes(bytes));
      } else {
        remote.interlocutor(bytes);
        local.interlocutor(pcm16FromBytes(bytes));
      }
      // Chunks from several event-loop turns, as a live session sends them.
      if (step % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    const closed = await remote.close();
    const ref = await local.close();
    await thread.stop();
    expect(errors).toEqual([]);
    expect(closed).toEqual({ path: join(dir, 'thread.wav'), bytes: ref.bytes, durationMs: ref.durationMs });
    expect(ref.bytes).toBeGreaterThan(100_000);
    expect(readFileSync(join(dir, 'thread.wav')).equals(readFileSync(join(dir, 'local.wav')))).toBe(true);
  });

  it('while the session runs, only its journal is on disk, at most one block behind; the WAV appears at the close', async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-rthread-'));
    const wav = join(dir, 'live.wav');
    const j = JournalWriter.create(wav, 1000);
    let appended = 16;
    for (const c of chunks(200, 1000)) {
      j.append(c.voice, c.at, c.bytes);
      appended += 16 + c.bytes.length;
      // What a crash would lose now: what is not in the file yet.
      expect(appended - statSync(journalPathOf(wav)).size).toBeLessThanOrEqual(JOURNAL_BLOCK + 16 + 1920 * 3);
    }
    expect(existsSync(wav)).toBe(false);
    j.close();
    expect(statSync(journalPathOf(wav)).size).toBe(appended);
    expect(statSync(journalPathOf(wav)).mode & 0o777).toBe(0o600);
  });

  it('a close writes its journal whole when it arrives, not after the assemblies queued before it: a stop then leaves it whole for the next start', async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-rthread-'));
    let now = 1000;
    // Each assembly holds the thread 5 s (the test seam): A's is still running when B closes, even
    // with a worker slow to start on a loaded machine.
    const thread = new RecordingThread(() => now, { assemblyDelayMs: 5000 });
    const [aPath, bPath] = [join(dir, 'a.wav'), join(dir, 'b.wav')];
    const a = thread.open(aPath, () => undefined);
    const b = thread.open(bPath, () => undefined);
    const ref = SessionRecorder.create(join(dir, 'ref.wav'), () => now);
    let bJournal = 16;
    // Less than one journal block in all: until its close, only B's header is on disk.
    const few = [...chunks(60, 1000)].filter((c) => c.voice === 0).slice(0, 12);
    for (const c of few) {
      now = c.at;
      a.candidate(c.bytes);
      if (c.voice === 0) b.candidate(c.bytes);
      else b.interlocutor(c.bytes);
      if (c.voice === 0) ref.candidate(pcm16FromBytes(c.bytes));
      else ref.interlocutor(pcm16FromBytes(c.bytes));
      bJournal += 16 + c.bytes.length;
    }
    expect(bJournal).toBeLessThan(JOURNAL_BLOCK);
    let aDone = false;
    const aClosed = a.close().then((r) => ((aDone = true), r));
    await new Promise((r) => setImmediate(r)); // A's close leaves first: its assembly starts
    const bClosed = b.close();
    const deadline = Date.now() + 4000;
    while ((existsSync(journalPathOf(bPath)) ? statSync(journalPathOf(bPath)).size : 0) < bJournal) {
      if (Date.now() > deadline) throw new Error('B\'s journal not written while A assembles');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(aDone).toBe(false);
    // The drain's deadline: the thread stops with both assemblies unfinished, both journals kept.
    await thread.stop(0);
    expect(await aClosed).toMatchObject({ path: null, unfinished: true });
    expect(await bClosed).toMatchObject({ path: null, unfinished: true });
    expect(existsSync(journalPathOf(aPath))).toBe(true);
    // Assembled later (the next start), B's WAV is the one a live recorder writes from every chunk.
    expect(await recoverRecording(bPath)).toBe((await ref.close()).bytes);
    expect(readFileSync(bPath).equals(readFileSync(join(dir, 'ref.wav')))).toBe(true);
  });

  it('a journal cut by a crash mid-chunk: the WAV assembled on the thread is the one an in-thread recorder writes from the whole chunks', async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-rthread-'));
    const wav = join(dir, 'crashed.wav');
    let now = 1000;
    const local = SessionRecorder.create(join(dir, 'local.wav'), () => now);
    const j = JournalWriter.create(wav, now);
    const all = [...chunks(300, 1000)];
    for (const c of all) j.append(c.voice, c.at, c.bytes);
    j.close();
    // The kill came in the middle of the last chunk's bytes.
    truncateSync(journalPathOf(wav), statSync(journalPathOf(wav)).size - 100);
    for (const c of all.slice(0, -1)) {
      now = c.at;
      if (c.voice === 0) local.candidate(pcm16FromBytes(c.bytes));
      else local.interlocutor(pcm16FromBytes(c.bytes));
    }
    const ref = await local.close();
    const thread = new RecordingThread();
    const bytes = await thread.recover(wav);
    await thread.stop();
    expect(bytes).toBe(ref.bytes);
    expect(ref.bytes).toBeGreaterThan(100_000);
    expect(readFileSync(wav).equals(readFileSync(join(dir, 'local.wav')))).toBe(true);
    // Assembled once: the journal is gone, and a second recovery leaves the WAV as it is.
    expect(existsSync(journalPathOf(wav))).toBe(false);
    expect(await recoverRecording(wav)).toBe(ref.bytes);
    expect(readFileSync(wav).equals(readFileSync(join(dir, 'local.wav')))).toBe(true);
  });

  it('a journal whose tail is not records we wrote (zero-filled by a power cut, or a garbage arrival time) assembles the records before it, no silence added', async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-rthread-'));
    const all = [...chunks(200, 1000)];
    let now = 1000;
    const ref = SessionRecorder.create(join(dir, 'local.wav'), () => now);
    for (const c of all) {
      now = c.at;
      if (c.voice === 0) ref.candidate(pcm16FromBytes(c.bytes));
      else ref.interlocutor(pcm16FromBytes(c.bytes));
    }
    const expected = await ref.close();
    for (const tail of ['zeros', 'far clock', 'bad voice'] as const) {
      const wav = join(dir, `${tail.replace(' ', '-')}.wav`);
      const j = JournalWriter.create(wav, 1000);
      for (const c of all) j.append(c.voice, c.at, c.bytes);
      j.close();
      const bad = Buffer.alloc(16 + 640);
      if (tail !== 'zeros') {
        bad[0] = tail === 'bad voice' ? 7 : 0;
        bad.writeUInt32LE(640, 4);
        bad.writeDoubleLE(tail === 'far clock' ? 1e15 : all.at(-1)!.at + 20, 8);
      }
      appendFileSync(journalPathOf(wav), Buffer.concat([bad, bad]));
      expect(await recoverRecording(wav)).toBe(expected.bytes);
      expect(readFileSync(wav).equals(readFileSync(join(dir, 'local.wav')))).toBe(true);
      expect(existsSync(journalPathOf(wav))).toBe(false);
    }
  });

  it('a recording discarded while open (its journal deleted) leaves no WAV at its close', async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-rthread-'));
    const thread = new RecordingThread();
    const wav = join(dir, 'gone.wav');
    const remote = thread.open(wav, () => undefined);
    remote.candidate(Buffer.alloc(640, 1));
    // The worker creates the journal once it has started (it loads its modules first).
    while (!existsSync(journalPathOf(wav))) await new Promise((r) => setTimeout(r, 10));
    rmSync(journalPathOf(wav), { force: true });
    remote.candidate(Buffer.alloc(640, 1));
    expect(await remote.close()).toEqual({ path: null, bytes: 0, durationMs: 0 });
    await thread.stop();
    expect(existsSync(wav)).toBe(false);
  });

  it('reports a recording that cannot be written, and closes it without a file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-rthread-'));
    const thread = new RecordingThread();
    const errors: string[] = [];
    // A directory where the file should be: the worker cannot create it.
    const remote = thread.open(dir, (e) => errors.push(e.message));
    remote.candidate(Buffer.alloc(640));
    const closed = await remote.close();
    expect(closed.path).toBeNull();
    expect(errors.length).toBe(1);
    // The thread itself survived: the next session records normally.
    const next = thread.open(join(dir, 'next.wav'), (e) => errors.push(e.message));
    next.candidate(Buffer.alloc(640));
    const ok = await next.close();
    await thread.stop();
    expect(ok.path).toBe(join(dir, 'next.wav'));
    // 20 ms of 16 kHz audio is 960 bytes at 24 kHz; it is placed at its arrival time, so the file
    // may start with the few milliseconds of silence between open() and the chunk.
    expect(ok.bytes).toBeGreaterThanOrEqual(960);
    expect(ok.bytes).toBeLessThan(960 + 4800);
    expect(ok.bytes % 2).toBe(0);
    expect(errors.length).toBe(1);
  });

  it('its synchronous writer: a disk error never throws from write, close rejects with it and closes the file once (a full disk: /dev/full)', async () => {
    const w = WavFileWriter.create('/dev/full', 24000, { sync: true });
    // Beyond one 0.5 s batch, so the samples reach writeSync before close.
    expect(() => w.write(new Int16Array(24000))).not.toThrow();
    expect(() => w.write(new Int16Array(480))).not.toThrow();
    await expect(w.close()).rejects.toThrow(/ENOSPC/);
    // Closed once: a second close does not touch the (closed) descriptor again.
    await expect(w.close()).resolves.toBe(w.dataBytes);
  });
});
