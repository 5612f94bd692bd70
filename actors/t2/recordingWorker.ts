import { parentPort, workerData } from 'node:worker_threads';
import { assembleRecording, JournalWriter, recoverRecording } from './recordingJournal.js';
import { CHUNK_FIELDS, type RecordingBatch, type RecordingControl, type RecordingReply, type RecordingWorkerData } from './recordingThread.js';

/**
 * The recording thread (see recordingThread.ts): appends every session's chunks, with the arrival
 * times the main thread saw, to that session's journal (recordingJournal.ts: a copy per chunk, a
 * file write per ≈ 0.5 s), and at the session's close assembles the WAV from it — resampling and
 * mixing the whole session once, after its real-time part, on this thread.
 */
const port = parentPort;
if (!port) throw new Error('recordingWorker must run as a worker thread');

interface Open {
  journal: JournalWriter;
  wavPath: string;
}
const journals = new Map<number, Open>();
const { assemblyDelayMs } = (workerData ?? { assemblyDelayMs: 0 }) as RecordingWorkerData;
/** The test seam (RecordingThreadOptions): this thread held as a slower assembly would hold it. */
const slowDown = (): void => {
  if (assemblyDelayMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, assemblyDelayMs);
};
const failed = new Set<number>();

/**
 * Assemblies (and recoveries) run one at a time, each in its own event-loop turn, so that the
 * batches queued meanwhile are read between two of them: a close's journal reaches the disk when
 * its message arrives, not after every assembly queued before it — a drain that stops this thread
 * at its deadline then leaves whole journals for the next start, never ones missing their last
 * block (docs/operations.md § Stop).
 */
const assemblies: Array<() => Promise<void>> = [];
let assembling = false;
function assembleLater(job: () => Promise<void>): void {
  assemblies.push(job);
  if (!assembling) pump();
}
function pump(): void {
  const job = assemblies.shift();
  assembling = job !== undefined;
  if (!job) return;
  setImmediate(() => {
    slowDown();
    void job().finally(pump);
  });
}

function reply(r: RecordingReply): void {
  port!.postMessage(r);
}

function fail(id: number, err: unknown): void {
  journals.get(id)?.journal.discard();
  journals.delete(id);
  failed.add(id);
  reply({ op: 'error', id, message: (err as Error).message });
}

function control(op: RecordingControl): void {
  if (op.op === 'recover') {
    assembleLater(() =>
      recoverRecording(op.path).then(
        (bytes) => reply({ op: 'recovered', id: op.id, bytes }),
        (err: unknown) => reply({ op: 'recovered', id: op.id, bytes: null, error: (err as Error).message }),
      ),
    );
    return;
  }
  if (failed.has(op.id) && op.op !== 'close') return;
  if (op.op === 'open') {
    try {
      journals.set(op.id, { journal: JournalWriter.create(op.path, op.atMs), wavPath: op.path });
    } catch (err) {
      fail(op.id, err);
    }
    return;
  }
  const open = journals.get(op.id);
  journals.delete(op.id);
  if (failed.delete(op.id) || !open) {
    reply({ op: 'closed', id: op.id, path: null, bytes: 0, durationMs: 0 });
    return;
  }
  const lost = (err: unknown): void => {
    open.journal.discard();
    reply({ op: 'error', id: op.id, message: (err as Error).message });
    reply({ op: 'closed', id: op.id, path: null, bytes: 0, durationMs: 0 });
  };
  try {
    open.journal.close();
  } catch (err) {
    lost(err);
    return;
  }
  // Synchronous in effect (the WAV is written with writeSync): batches of other sessions wait
  // in this thread's queue meanwhile; the event loop that forwards audio does not.
  assembleLater(() =>
    assembleRecording(open.wavPath).then(
      (r) => reply({ op: 'closed', id: op.id, path: r?.path ?? null, bytes: r?.bytes ?? 0, durationMs: r?.durationMs ?? 0 }),
      lost,
    ),
  );
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
    const open = journals.get(id);
    if (!open) continue;
    try {
      open.journal.append(r[at] === 0 ? 0 : 1, r[at + 2]!, bytes.subarray(r[at + 3]!, r[at + 3]! + r[at + 4]!));
    } catch (err) {
      fail(id, err);
    }
  }
  while (c < msg.control.length) control(msg.control[c++]!);
});
