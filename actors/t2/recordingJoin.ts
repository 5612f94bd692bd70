import { createReadStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { wavHeader } from './wavWriter.js';

/** palabre's recordings: canonical 44-byte header, PCM16 mono 24 kHz (actors/t2/wavWriter.ts). */
const HEADER = 44;
const RATE = 24_000;

/**
 * A session taken over from another instance: what the first instance recorded (`first`, a valid
 * WAV once recovered) and what this one recorded since (`second`) become one WAV at `first`, the
 * second's samples after the first's (the time no instance held the session is not in it). The
 * second file is deleted. Streamed: neither file is held whole in memory. Returns the data bytes.
 */
export async function appendRecording(first: string, second: string): Promise<number> {
  const out = await open(first, 'r+');
  try {
    const firstData = Math.max(0, (await out.stat()).size - HEADER) & ~1;
    let at = HEADER + firstData;
    await out.truncate(at);
    for await (const chunk of createReadStream(second, { start: HEADER })) {
      const buf = chunk as Buffer;
      await out.write(buf, 0, buf.byteLength, at);
      at += buf.byteLength;
    }
    const data = (at - HEADER) & ~1;
    if (HEADER + data !== at) await out.truncate(HEADER + data);
    await out.write(wavHeader(RATE, data), 0, HEADER, 0);
    await rm(second, { force: true });
    return data;
  } finally {
    await out.close();
  }
}
