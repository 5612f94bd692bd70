import { parentPort } from 'node:worker_threads';
import { pcm16FromBytes } from './resampler.js';
import { SessionRecorder } from './recorder.js';
import { CHUNK_FIELDS, type RecordingBatch, type RecordingControl, type RecordingReply } from './recordingThread.js';

/**
 * The recording thread (see recordingThread.ts): runs every session's SessionRecorder off the
 * event loop that forwards audio. Each chunk carries the arrival time the main thread saw, and the
 * recorder's clock is set to it before the chunk is placed, so the timeline is the same as if the
 * recorder ran on the main thread.
 */
const port = parentPort;
if (!port) throw new Error('recordingWorker must run as a worker thread');

let clock = 0;
const recorders = new Map<number, SessionRecorder>();
const failed = new Set<number>();

function reply(r: RecordingReply): void {
  port!.postMessage(r);
}

function fail(id: number, err: unknown): void {
  recorders.delete(id);
  failed.add(id);
  reply({ op: 'error', id, message: (err as Error).message });
}

function control(op: RecordingControl): void {
  if (failed.has(op.id) && op.op !== 'close') return;
  try {
    if (op.op === 'open') {
      clock = op.atMs;
      // This thread forwards no audio: the file is written synchronously (no stream, no thread pool hop).
      recorders.set(op.id, SessionRecorder.create(op.path, () => clock, { syncWrites: true }));
      return;
    }
    const rec = recorders.get(op.id);
    recorders.delete(op.id);
    if (failed.delete(op.id) || !rec) {
      reply({ op: 'closed', id: op.id, path: null, bytes: 0, durationMs: 0 });
      return;
    }
    rec.close().then(
      (r) => reply({ op: 'closed', id: op.id, path: r.path, bytes: r.bytes, durationMs: r.durationMs }),
      (err: unknown) => {
        reply({ op: 'error', id: op.id, message: (err as Error).message });
        reply({ op: 'closed', id: op.id, path: null, bytes: 0, durationMs: 0 });
      },
    );
  } catch (err) {
    fail(op.id, err);
  }
}

port.on('message', (msg: RecordingBatch) => {
  const bytes = new Uint8Array(msg.buf);
  const r = new Float64Array(msg.records);
  let c = 0;
  for (let i = 0; i < msg.count; i++) {
    // Opens and closes keep their place among the chunks.
    while (c < msg.control.length && msg.control[c]!.at <= i) control(msg.control[c++]!);
    const at = i * CHUNK_FIELDS;
    const id = r[at + 1]!;
    const rec = recorders.get(id);
    if (!rec) continue;
    try {
      clock = r[at + 2]!;
      const pcm = pcm16FromBytes(bytes.subarray(r[at + 3]!, r[at + 3]! + r[at + 4]!));
      if (r[at] === 0) rec.candidate(pcm);
      else rec.interlocutor(pcm);
    } catch (err) {
      fail(id, err);
    }
  }
  while (c < msg.control.length) control(msg.control[c++]!);
});
