import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DOWN, Resampler16to24, TAPS_PER_PHASE, UP, designPrototype, prototypeResponseDb, pcm16FromBytes, toPcm16 } from '../../actors/t2/resampler.js';
import { SessionRecorder } from '../../actors/t2/audioRecorder.js';

function sine(hz: number, rate: number, seconds: number, amp = 10000): Int16Array {
  const n = Math.round(rate * seconds);
  const x = new Int16Array(n);
  for (let i = 0; i < n; i++) x[i] = Math.round(Math.sin((2 * Math.PI * hz * i) / rate) * amp);
  return x;
}

/** Amplitude of the component at `hz` (single-bin DFT) over a window of a whole number of periods. */
function amplitudeAt(x: Int16Array, hz: number, rate: number, from: number, count: number): number {
  let re = 0;
  let im = 0;
  for (let i = 0; i < count; i++) {
    const w = (2 * Math.PI * hz * (from + i)) / rate;
    re += x[from + i]! * Math.cos(w);
    im += x[from + i]! * Math.sin(w);
  }
  return (2 * Math.hypot(re, im)) / count;
}

function resampleInChunks(x: Int16Array, chunk: number): Int16Array {
  const r = new Resampler16to24();
  const parts: Int16Array[] = [];
  for (let i = 0; i < x.length; i += chunk) parts.push(r.push(x.subarray(i, i + chunk)));
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

describe('16 → 24 kHz resampler (windowed-sinc polyphase FIR)', () => {
  it('has a flat pass band, its −6 dB point at the 8 kHz input Nyquist, and ≥ 60 dB stop band', () => {
    for (const hz of [0, 300, 1000, 3000, 5000, 6500]) expect(Math.abs(prototypeResponseDb(hz))).toBeLessThan(0.05);
    expect(prototypeResponseDb(8000)).toBeCloseTo(-6.02, 1);
    for (let hz = 9500; hz <= 24000; hz += 250) expect(prototypeResponseDb(hz)).toBeLessThan(-60);
  });

  it('produces 1.5 samples per input sample whatever the chunking, identically', () => {
    const x = sine(1000, 16000, 1);
    const whole = resampleInChunks(x, x.length);
    expect(whole.length).toBe(24000);
    for (const chunk of [1, 7, 160, 320, 333]) expect(Buffer.from(resampleInChunks(x, chunk).buffer).equals(Buffer.from(whole.buffer))).toBe(true);
  });

  it('gives the same samples when chunks are queued and resampled in one batch (enqueue/drain)', () => {
    const x = sine(1000, 16000, 1);
    const whole = resampleInChunks(x, x.length);
    const r = new Resampler16to24();
    const parts: Int16Array[] = [];
    let announced = 0;
    for (let i = 0, k = 0; i < x.length; i += 320, k++) {
      announced += r.enqueue(x.subarray(i, i + 320));
      // Batches of 1 to 7 chunks: each enqueue's count is what its own push would have given.
      if (k % 7 === 3 || i + 320 >= x.length) parts.push(r.drain());
    }
    const got = Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
    expect(announced).toBe(whole.length);
    expect(got.equals(Buffer.from(whole.buffer))).toBe(true);
    expect(r.pending).toBe(0);
  });

  it('gives, with the WebAssembly SIMD kernel, the very samples of the JavaScript loop (full scale, clipping, any chunking)', () => {
    const simd = new Resampler16to24();
    const js = new Resampler16to24({ simd: false });
    // The kernel must exist on Node 20: this test is what makes it the path recordings take.
    expect(simd.simd).toBe(true);
    expect(js.simd).toBe(false);
    let seed = 7;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    let compared = 0;
    for (let step = 0; step < 400; step++) {
      const n = [1, 2, 17, 320, 320, 960, 1600, 5000][Math.floor(rand() * 8)]!;
      // Random full-scale samples, 5 % at the rails: outputs overshoot and get clipped.
      const x = new Int16Array(n);
      for (let i = 0; i < n; i++) x[i] = rand() < 0.05 ? (rand() < 0.5 ? 32767 : -32768) : Math.floor(rand() * 65536) - 32768;
      const batched = step % 3 !== 0;
      const a = batched ? (simd.enqueue(x), simd.drain()) : simd.push(x);
      const b = batched ? (js.enqueue(x), js.drain()) : js.push(x);
      expect(Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))).toBe(true);
      compared += a.length;
    }
    expect(compared).toBeGreaterThan(500_000);
  });

  it('rounds to the samples of the same filter in double precision, within one step, rarely (single precision is enough)', () => {
    // The reference: y at the 48 kHz position u = n × DOWN, phase p = u mod UP, newest input i = u / UP,
    // is the sum over m of h[p + UP·m] × x[i − m], in doubles.
    const h = designPrototype();
    let seed = 11;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const x = new Int16Array(200_000);
    for (let i = 0; i < x.length; i++) x[i] = rand() < 0.05 ? (rand() < 0.5 ? 32767 : -32768) : Math.floor(rand() * 65536) - 32768;
    const got = new Resampler16to24().push(x);
    expect(got.length).toBe(300_000);
    let differ = 0;
    let worst = 0;
    for (let n = 0; n < got.length; n++) {
      const u = n * DOWN;
      const i = Math.floor(u / UP);
      const p = u - i * UP;
      let y = 0;
      for (let m = 0; m < TAPS_PER_PHASE; m++) y += i - m >= 0 ? h[p + UP * m]! * x[i - m]! : 0;
      const d = Math.abs(got[n]! - toPcm16(y));
      worst = Math.max(worst, d);
      if (d) differ++;
    }
    expect(worst).toBeLessThanOrEqual(1);
    // Outputs land within a few thousandths of a step of the double-precision sum: only those
    // that fall that close to a half step round the other way (266 of 300 000 here).
    expect(differ / got.length).toBeLessThan(0.002);
  });

  it('rounds to PCM16 as Math.round does, ties towards +∞, and clips at the rails', () => {
    const reference = (a: number): number => (a > 32767 ? 32767 : a < -32768 ? -32768 : Math.round(a));
    const values = [0, -0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997, 32766.5, 32767, 32767.4, 32767.5, 40000, -32767.5, -32768, -32768.4, -32768.5, -40000, 1e9, -1e9];
    let seed = 3;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 200_000; i++) values.push((rand() - 0.5) * 70_000, Math.round((rand() - 0.5) * 70_000) + 0.5, Math.fround((rand() - 0.5) * 66_000));
    for (const v of values) if (toPcm16(v) !== reference(v)) expect.fail(`toPcm16(${v}) = ${toPcm16(v)}, Math.round gives ${reference(v)}`);
  });

  it('keeps a 1 kHz tone at its level and puts no image above 8 kHz (anti-aliasing)', () => {
    const out = resampleInChunks(sine(1000, 16000, 1), 320);
    const from = 2400;
    const count = 19200; // 0.8 s: whole periods of every frequency below
    const a1k = amplitudeAt(out, 1000, 24000, from, count);
    expect(a1k / 10000).toBeGreaterThan(0.99);
    expect(a1k / 10000).toBeLessThan(1.01);
    // Zero-stuffing images a 3 kHz tone at 13 kHz (aliased to 11 kHz at 24 kHz): removed.
    const out3 = resampleInChunks(sine(3000, 16000, 1), 320);
    const image = amplitudeAt(out3, 11000, 24000, from, count);
    expect(20 * Math.log10(image / 10000)).toBeLessThan(-55);
    // A linear interpolator would leave it around −30 dB: this is what the filter buys.
  });

  it('reads PCM16 from unaligned byte buffers', () => {
    const bytes = Buffer.alloc(7);
    bytes.writeInt16LE(1234, 1);
    expect(Array.from(pcm16FromBytes(bytes.subarray(1)))).toEqual([1234, 0, 0]);
  });
});

describe('chronological recording of both voices', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('places each voice at its arrival time on one 24 kHz timeline, streamed to a valid WAV', async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-rec-'));
    let now = 1000;
    const rec = SessionRecorder.create(join(dir, 's.wav'), () => now);
    // 100 ms of candidate audio at t=0, model audio arriving at t=500 ms (a 200 ms burst).
    rec.candidate(sine(500, 16000, 0.1));
    now += 500;
    const model = new Int16Array(4800).fill(7000);
    rec.interlocutor(model);
    now += 50; // the burst arrives faster than real time: laid end to end
    rec.interlocutor(model);
    const { bytes, durationMs } = await rec.close();
    const wav = readFileSync(join(dir, 's.wav'));
    expect(wav.subarray(0, 4).toString()).toBe('RIFF');
    expect(wav.subarray(8, 12).toString()).toBe('WAVE');
    expect(wav.readUInt32LE(4)).toBe(36 + bytes);
    expect(wav.readUInt16LE(22)).toBe(1);
    expect(wav.readUInt32LE(24)).toBe(24000);
    expect(wav.readUInt16LE(34)).toBe(16);
    expect(wav.readUInt32LE(40)).toBe(bytes);
    // A candidate's voice: readable by this user only (new folder 0700, file 0600).
    expect(statSync(join(dir, 's.wav')).mode & 0o777).toBe(0o600);
    const samples = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length));
    // 500 ms + 2 × 200 ms of model audio.
    expect(samples.length).toBe(12000 + 9600);
    expect(durationMs).toBe(900);
    // Candidate audio at the start, silence between 100 ms and 500 ms, model audio from 500 ms.
    expect(Math.max(...Array.from(samples.subarray(0, 2400)).map(Math.abs))).toBeGreaterThan(9000);
    expect(Math.max(...Array.from(samples.subarray(2600, 12000)).map(Math.abs))).toBeLessThan(50);
    expect(samples[12000]).toBe(7000);
    expect(samples[12000 + 9599]).toBe(7000);
  });

  it('equals a whole-timeline reference mix over a long random session (bursts, gaps, overlaps)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-rec-'));
    let now = 0;
    const rec = SessionRecorder.create(join(dir, 'r.wav'), () => now);
    const ref = new Float64Array(24000 * 120);
    const resampler = new Resampler16to24();
    let candEnd = 0;
    let modelEnd = 0;
    let seed = 7;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let step = 0; step < 400; step++) {
      now += Math.floor(rand() * 60);
      const nowSample = Math.floor((now * 24000) / 1000);
      if (rand() < 0.6) {
        const pcm = Int16Array.from({ length: 320 }, () => Math.floor(rand() * 2000) - 1000);
        const at = Math.max(nowSample, candEnd);
        const up = resampler.push(pcm);
        for (let i = 0; i < up.length; i++) ref[at + i]! += up[i]!;
        candEnd = at + up.length;
        rec.candidate(pcm);
      } else {
        const pcm = Int16Array.from({ length: 480 * (1 + Math.floor(rand() * 20)) }, () => Math.floor(rand() * 2000) - 1000);
        const at = Math.max(nowSample, modelEnd);
        for (let i = 0; i < pcm.length; i++) ref[at + i]! += pcm[i]!;
        modelEnd = at + pcm.length;
        rec.interlocutor(pcm);
      }
    }
    const { bytes } = await rec.close();
    const wav = readFileSync(join(dir, 'r.wav'));
    const got = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length));
    expect(got.length).toBe(Math.max(candEnd, modelEnd));
    expect(bytes).toBe(got.length * 2);
    let mismatches = 0;
    for (let i = 0; i < got.length; i++) if (got[i] !== Math.max(-32768, Math.min(32767, Math.round(ref[i]!)))) mismatches++;
    expect(mismatches).toBe(0);
  });

  it('places each candidate chunk at its own arrival time when several wait in one resampling batch', async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-rec-'));
    let now = 0;
    const rec = SessionRecorder.create(join(dir, 'b.wav'), () => now);
    const ref = new Float64Array(24000 * 10);
    const resampler = new Resampler16to24();
    let candEnd = 0;
    let seed = 11;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    // Candidate only (nothing drains the batch early): 20 ms chunks, on time, late or in bursts.
    for (let step = 0; step < 200; step++) {
      now += [0, 20, 20, 20, 35, 90][Math.floor(rand() * 6)]!;
      const pcm = Int16Array.from({ length: 320 }, () => Math.floor(rand() * 20000) - 10000);
      const at = Math.max(Math.floor((now * 24000) / 1000), candEnd);
      const up = resampler.push(pcm);
      for (let i = 0; i < up.length; i++) ref[at + i]! += up[i]!;
      candEnd = at + up.length;
      rec.candidate(pcm);
    }
    await rec.close();
    const wav = readFileSync(join(dir, 'b.wav'));
    const got = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length));
    expect(got.length).toBe(candEnd);
    let mismatches = 0;
    for (let i = 0; i < got.length; i++) if (got[i] !== Math.max(-32768, Math.min(32767, Math.round(ref[i]!)))) mismatches++;
    expect(mismatches).toBe(0);
  });

  it('mixes overlapping voices (barge-in) with clipping instead of wrap-around', async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-rec-'));
    const now = 0;
    const rec = SessionRecorder.create(join(dir, 'm.wav'), () => now);
    rec.interlocutor(new Int16Array(2400).fill(30000));
    rec.candidate(new Int16Array(1600).fill(30000));
    await rec.close();
    const wav = readFileSync(join(dir, 'm.wav'));
    const s = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length));
    expect(s[1200]).toBe(32767);
  });
});
