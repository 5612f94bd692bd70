/**
 * The session recorder alone (actors/t2/audioRecorder.ts: resampling, mixing, WAV writes), in this
 * thread: process CPU per 20 ms candidate chunk, 20 recordings × 60 s, with 1 s of model reply
 * every 3 s (the load of bench/t2-sessions-load.ts), medians of 5 after a warm-up; and the
 * SHA-256 of one file, to compare the bytes two checkouts write (a speed-up must not change the file).
 *
 *   npx tsx bench/t2-recorder.ts [checkout root, default this one]
 * e.g. `git worktree add /tmp/base <commit>` and run it with /tmp/base, then without.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
type Recorder = { candidate(p: Int16Array): void; interlocutor(p: Int16Array): void; close(): Promise<unknown> };
const { SessionRecorder } = (await import(join(root, 'actors/t2/audioRecorder.ts'))) as { SessionRecorder: { create(path: string, now: () => number): Recorder } };
const { pcm16FromBytes } = (await import(join(root, 'actors/t2/resampler.ts'))) as { pcm16FromBytes(b: Uint8Array): Int16Array };

const cand = Buffer.alloc(640);
for (let i = 0; i < 320; i++) cand.writeInt16LE(Math.round(Math.sin(i / 5) * 3000), i * 2);
const reply = Buffer.alloc(5760); // 120 ms at 24 kHz: one Gemini message of three 40 ms parts
for (let i = 0; i < 2880; i++) reply.writeInt16LE(Math.round(Math.sin(i / 9) * 5000), i * 2);

async function once(): Promise<{ us: number; sha: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-recbench-'));
  let now = 1000;
  const recs = Array.from({ length: 20 }, (_, k) => SessionRecorder.create(join(dir, `${k}.wav`), () => now));
  const c0 = process.cpuUsage();
  let chunks = 0;
  for (let t = 0; t < 3000; t++) {
    now += 20;
    for (const r of recs) {
      r.candidate(pcm16FromBytes(cand));
      chunks++;
      // 1 s of reply in every 3 s, as bursts of 120 ms.
      if (t % 150 >= 50 && t % 150 < 100 && t % 6 === 0) r.interlocutor(pcm16FromBytes(reply));
    }
  }
  const c = process.cpuUsage(c0);
  for (const r of recs) await r.close();
  const sha = createHash('sha256').update(readFileSync(join(dir, '0.wav'))).digest('hex');
  rmSync(dir, { recursive: true });
  return { us: (c.user + c.system) / chunks, sha };
}

await once();
const runs = [];
for (let i = 0; i < 5; i++) runs.push(await once());
const us = runs.map((r) => r.us).sort((a, b) => a - b);
const result = { bench: 't2-recorder', root, cpuPerCandidateChunkUs: Math.round(us[2]! * 100) / 100, range: [Math.round(us[0]! * 100) / 100, Math.round(us[4]! * 100) / 100], sha256: runs[0]!.sha, loadavg1m: loadavg()[0] ?? 0 };
console.log(JSON.stringify(result));
