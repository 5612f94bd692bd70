/**
 * Where the recording's CPU goes since the journal (actors/t2/recordingJournal.ts), in this thread,
 * with the load of bench/t2-recorder.ts (20 recordings × 60 s, 1 s of model reply every 3 s):
 * - live: SessionRecorder fed as the chunks come (what the recording thread did per chunk before);
 * - append: JournalWriter.append per chunk (what it does now while the sessions stream);
 * - assemble: assembleRecording of each journal at the close (the resampling and mixing, moved);
 * process CPU per 20 ms candidate chunk, medians of 5 after a warm-up, the assembly's wall time
 * per minute of session, and the SHA-256 of one WAV each way (they must be equal).
 *
 *   npx tsx bench/t2-journal.ts
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SessionRecorder } from '../actors/t2/audioRecorder.js';
import { assembleRecording, JournalWriter } from '../actors/t2/recordingJournal.js';
import { pcm16FromBytes } from '../actors/t2/resampler.js';

const RECORDINGS = 20;
const TICKS = 3000; // 60 s of 20 ms chunks
const cand = Buffer.alloc(640);
for (let i = 0; i < 320; i++) cand.writeInt16LE(Math.round(Math.sin(i / 5) * 3000), i * 2);
const reply = Buffer.alloc(5760); // 120 ms at 24 kHz: one Gemini message of three 40 ms parts
for (let i = 0; i < 2880; i++) reply.writeInt16LE(Math.round(Math.sin(i / 9) * 5000), i * 2);

/** Calls `each(k, voice, bytes)` in arrival order, the clock set first; returns the candidate chunks. */
function feed(setNow: (ms: number) => void, each: (k: number, voice: 0 | 1, bytes: Buffer) => void): number {
  let chunks = 0;
  for (let t = 0; t < TICKS; t++) {
    setNow(1000 + (t + 1) * 20);
    for (let k = 0; k < RECORDINGS; k++) {
      each(k, 0, cand);
      chunks++;
      if (t % 150 >= 50 && t % 150 < 100 && t % 6 === 0) each(k, 1, reply);
    }
  }
  return chunks;
}

const cpuUs = (c: NodeJS.CpuUsage): number => c.user + c.system;

interface Once {
  live: number;
  append: number;
  assemble: number;
  assembleMsPerMin: number;
  same: boolean;
}

async function once(): Promise<Once> {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-journalbench-'));
  let now = 1000;
  const recs = Array.from({ length: RECORDINGS }, (_, k) => SessionRecorder.create(join(dir, `live-${k}.wav`), () => now));
  let c0 = process.cpuUsage();
  const chunks = feed((ms) => (now = ms), (k, v, b) => (v === 0 ? recs[k]!.candidate(pcm16FromBytes(b)) : recs[k]!.interlocutor(pcm16FromBytes(b))));
  const live = cpuUs(process.cpuUsage(c0)) / chunks;
  for (const r of recs) await r.close();

  const journals = Array.from({ length: RECORDINGS }, (_, k) => JournalWriter.create(join(dir, `j-${k}.wav`), 1000));
  c0 = process.cpuUsage();
  feed((ms) => (now = ms), (k, v, b) => journals[k]!.append(v, now, b));
  for (const j of journals) j.close();
  const append = cpuUs(process.cpuUsage(c0)) / chunks;

  c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let k = 0; k < RECORDINGS; k++) await assembleRecording(join(dir, `j-${k}.wav`));
  const wallMs = performance.now() - t0;
  const assemble = cpuUs(process.cpuUsage(c0)) / chunks;
  const sha = (f: string): string => createHash('sha256').update(readFileSync(join(dir, f))).digest('hex');
  const same = sha('live-0.wav') === sha('j-0.wav');
  rmSync(dir, { recursive: true });
  return { live, append, assemble, assembleMsPerMin: wallMs / RECORDINGS / (TICKS * 0.02 / 60), same };
}

await once();
const runs: Once[] = [];
for (let i = 0; i < 5; i++) runs.push(await once());
const med = (f: (r: Once) => number): number => Math.round(runs.map(f).sort((a, b) => a - b)[2]! * 100) / 100;
const result = {
  bench: 't2-journal',
  liveRecorderUsPerChunk: med((r) => r.live),
  journalAppendUsPerChunk: med((r) => r.append),
  assembleUsPerChunk: med((r) => r.assemble),
  assembleMsPerSessionMinute: med((r) => r.assembleMsPerMin),
  sameBytes: runs.every((r) => r.same),
  loadavg1m: loadavg()[0] ?? 0,
};
console.log(JSON.stringify(result));
console.table([{ 'live µs/chunk': result.liveRecorderUsPerChunk, 'append µs/chunk': result.journalAppendUsPerChunk, 'assemble µs/chunk': result.assembleUsPerChunk, 'assemble ms per session minute': result.assembleMsPerSessionMinute, 'same bytes': result.sameBytes }]);
