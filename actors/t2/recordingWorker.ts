import { parentPort } from 'node:worker_threads';
import { pcm16FromBytes } from './resampler.js';
import { SessionRecorder } from './recorder.js';
import type { RecordingOp, RecordingReply } from './recordingThread.js';

/**
 * The recording thread (see recordingThread.ts): runs every session's SessionRecorder off the
 * event loop that forwards audio. Each chunk carries the arrival time the main thread saw, and the
 * recorder's clock is set to it before the chunk is placed, so the timeline is the same as if the
 * recorder ran on the main thread.
 */
const port = parentPort;
if (!port) throw new Error('recordingWorker must run as a worker thread');

let clock = 0;
const recorders = new Map<string, SessionRecorder>();
const failed = new Set<string>();

function reply(r: RecordingReply): void {
  port!.postMessage(r);
}

function fail(id: string, err: unknown): void {
  recorders.delete(id);
  failed.add(id);
  reply({ op: 'error', id, message: (err as Error).message });
}

port.on('message', (msg: { ops: RecordingOp[]; buf: ArrayBuffer }) => {
  const bytes = new Uint8Array(msg.buf);
  for (const op of msg.ops) {
    if (failed.has(op.id) && op.op !== 'close') continue;
    try {
      switch (op.op) {
        case 'open':
          clock = op.atMs;
          recorders.set(op.id, SessionRecorder.create(op.path, () => clock));
          break;
        case 'candidate':
        case 'interlocutor': {
          const rec = recorders.get(op.id);
          if (!rec) break;
          clock = op.atMs;
          rec[op.op](pcm16FromBytes(bytes.subarray(op.offset, op.offset + op.length)));
          break;
        }
        case 'close': {
          const rec = recorders.get(op.id);
          recorders.delete(op.id);
          if (failed.delete(op.id) || !rec) {
            reply({ op: 'closed', id: op.id, path: null, bytes: 0, durationMs: 0 });
            break;
          }
          rec.close().then(
            (r) => reply({ op: 'closed', id: op.id, path: r.path, bytes: r.bytes, durationMs: r.durationMs }),
            (err: unknown) => {
              reply({ op: 'error', id: op.id, message: (err as Error).message });
              reply({ op: 'closed', id: op.id, path: null, bytes: 0, durationMs: 0 });
            },
          );
          break;
        }
      }
    } catch (err) {
      fail(op.id, err);
    }
  }
});
