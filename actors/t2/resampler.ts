/**
 * Streaming 16 kHz → 24 kHz resampler for the session recording (docs/t2-live.md#the-recording).
 *
 * A rational polyphase FIR (up 3, down 2): the low-pass is a Kaiser-windowed sinc designed at
 * 48 kHz with its cut-off at the 8 kHz input Nyquist, so the images that zero-stuffing creates
 * (16 kHz − f) are removed before decimation — a real anti-aliased resampler, not linear
 * interpolation. Each call may carry any number of samples; state (history and phase) is kept.
 *
 * Why not a library: @alexanderolsen/libsamplerate-js 2.1.2 (libsamplerate in WASM) installs on
 * Node 20 and was measured here at 288× real time (SINC_FASTEST) and 151× (SINC_MEDIUM) on 20 ms
 * chunks, below the 500× target (docs/t2-live.md § Benchmarks); this filter runs well above it (bench/t2-resampler.ts).
 */

import { simdFirKernel, type FirKernel } from './firKernel.js';

export const UP = 3;
export const DOWN = 2;
/** Taps per polyphase branch; the prototype filter has UP × TAPS_PER_PHASE taps. */
export const TAPS_PER_PHASE = 24;
/** Kaiser β for ~60 dB stop-band attenuation. */
const KAISER_BETA = 5.65;
/** Cut-off (−6 dB point) at the 48 kHz design rate: the input Nyquist. */
const CUTOFF_HZ = 8000;
const DESIGN_RATE = 48000;

function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) * (x / (2 * k));
    sum += term;
    if (term < 1e-12 * sum) break;
  }
  return sum;
}

/** The prototype low-pass at 48 kHz, scaled so that each polyphase branch has unit DC gain. */
export function designPrototype(): Float64Array {
  const n = UP * TAPS_PER_PHASE;
  const h = new Float64Array(n);
  const mid = (n - 1) / 2;
  const fc = CUTOFF_HZ / DESIGN_RATE; // cycles per sample
  const i0b = besselI0(KAISER_BETA);
  for (let i = 0; i < n; i++) {
    const t = i - mid;
    const sinc = t === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * t) / (Math.PI * t);
    const r = (2 * i) / (n - 1) - 1;
    const w = besselI0(KAISER_BETA * Math.sqrt(Math.max(0, 1 - r * r))) / i0b;
    h[i] = sinc * w;
  }
  let sum = 0;
  for (const v of h) sum += v;
  for (let i = 0; i < n; i++) h[i] = (h[i]! * UP) / sum;
  return h;
}

/** Magnitude response (dB) of the prototype at `hz` (design rate 48 kHz), for tests and docs. */
export function prototypeResponseDb(hz: number, h: Float64Array = designPrototype()): number {
  let re = 0;
  let im = 0;
  for (let i = 0; i < h.length; i++) {
    const w = (2 * Math.PI * hz * i) / DESIGN_RATE;
    re += h[i]! * Math.cos(w);
    im -= h[i]! * Math.sin(w);
  }
  return 20 * Math.log10(Math.hypot(re, im) / UP);
}

/**
 * Branch p holds taps h[p], h[p+3], h[p+6]…, so one output costs TAPS_PER_PHASE multiplies. The
 * branches are laid out flat and reversed, so the inner loop walks both arrays forwards.
 */
function flatPhases(h: Float64Array): Float32Array {
  // In single precision, as the filter runs (actors/t2/firKernel.ts says why).
  const flat = new Float32Array(UP * TAPS_PER_PHASE);
  for (let p = 0; p < UP; p++) {
    for (let k = 0; k < TAPS_PER_PHASE; k++) flat[p * TAPS_PER_PHASE + (TAPS_PER_PHASE - 1 - k)] = h[p + UP * k]!;
  }
  return flat;
}

const TAPS = flatPhases(designPrototype());
const HIST = TAPS_PER_PHASE - 1;
/** The same filter loop in WebAssembly SIMD, bit-identical (actors/t2/firKernel.ts); one per thread. */
const SIMD_KERNEL = simdFirKernel(TAPS, UP, DOWN, TAPS_PER_PHASE);

export class Resampler16to24 {
  private readonly kernel: FirKernel | undefined;

  /** `simd: false`: the JavaScript loop even where the SIMD kernel exists (tests compare both). */
  constructor(opts: { simd?: boolean } = {}) {
    this.kernel = opts.simd === false ? undefined : SIMD_KERNEL;
  }

  /** Whether this resampler runs the WebAssembly SIMD kernel. */
  get simd(): boolean {
    return this.kernel !== undefined;
  }

  /** Working buffer: HIST samples of history followed by the queued input (grown as needed). */
  private buf = new Float32Array(HIST + 4096);
  /** Input samples queued after the history, not resampled yet. */
  private queued = 0;
  /** Position of the next output in the 48 kHz domain, relative to the first queued sample. */
  private u = 0;
  /** The same position once everything queued is resampled (tells `enqueue` its output count). */
  private uAfterQueue = 0;

  /** Resamples one chunk of PCM16 LE mono samples; returns PCM16 at 24 kHz (about 1.5× as many). */
  push(input: Int16Array): Int16Array {
    this.enqueue(input);
    return this.drain();
  }

  /**
   * Queues a chunk without resampling it yet and returns how many output samples it will give
   * (exactly what `push` of this chunk would have returned), so callers can batch the filter work
   * of several chunks into one `drain()`, whose output is the same samples, in order.
   */
  enqueue(input: Int16Array): number {
    const len = input.length;
    if (this.buf.length < HIST + this.queued + len) {
      const bigger = new Float32Array(Math.max(HIST + this.queued + len, this.buf.length * 2));
      bigger.set(this.buf.subarray(0, HIST + this.queued));
      this.buf = bigger;
    }
    const buf = this.buf;
    const at = HIST + this.queued;
    for (let i = 0; i < len; i++) buf[at + i] = input[i]!;
    this.queued += len;
    const limit = len * UP;
    const n = this.uAfterQueue < limit ? Math.ceil((limit - this.uAfterQueue) / DOWN) : 0;
    this.uAfterQueue += n * DOWN - limit;
    return n;
  }

  /** Input samples queued and not resampled yet. */
  get pending(): number {
    return this.queued;
  }

  /** Resamples everything queued since the last drain. */
  drain(): Int16Array {
    const acc = this.drainRaw();
    const out = new Int16Array(acc.length);
    for (let n = 0; n < acc.length; n++) out[n] = toPcm16(acc[n]!);
    return out;
  }

  /**
   * What `drain` returns, before rounding and clipping (`toPcm16` of each value gives `drain`'s
   * samples): a view valid until the next call. The recorder rounds and mixes them in one pass.
   */
  drainRaw(): Float32Array {
    const len = this.queued;
    const limit = len * UP;
    let u = this.u;
    const buf = this.buf;
    let acc: Float32Array;
    if (this.kernel) {
      const r = this.kernel.run(buf.subarray(0, HIST + len), u, limit);
      acc = r.out;
      u = r.u;
    } else {
      const count = Math.max(0, Math.ceil((limit - u) / DOWN));
      if (this.raw.length < count) this.raw = new Float32Array(Math.max(count, this.raw.length * 2));
      acc = this.raw.subarray(0, count);
      const taps = TAPS;
      // Single precision as in the kernel: each product and sum rounded to float32.
      const f = Math.fround;
      let n = 0;
      while (u < limit) {
        const i = (u / UP) | 0; // newest input sample used
        const off = (u - i * UP) * TAPS_PER_PHASE;
        // buf[i .. i+HIST] are the 32 most recent samples, oldest first; taps are reversed to match.
        // Unrolled by 4 (TAPS_PER_PHASE is a multiple of 4): a third fewer loop checks per output.
        let a0 = 0;
        let a1 = 0;
        let a2 = 0;
        let a3 = 0;
        for (let k = 0; k < TAPS_PER_PHASE; k += 4) {
          a0 = f(a0 + f(taps[off + k]! * buf[i + k]!));
          a1 = f(a1 + f(taps[off + k + 1]! * buf[i + k + 1]!));
          a2 = f(a2 + f(taps[off + k + 2]! * buf[i + k + 2]!));
          a3 = f(a3 + f(taps[off + k + 3]! * buf[i + k + 3]!));
        }
        acc[n++] = f(f(f(a0 + a1) + a2) + a3);
        u += DOWN;
      }
    }
    this.u = u - limit;
    this.uAfterQueue = this.u;
    buf.copyWithin(0, len, len + HIST);
    this.queued = 0;
    return acc;
  }

  /** The JavaScript loop's outputs (no SIMD kernel), reused from drain to drain. */
  private raw = new Float32Array(0);
}

/** One resampled value as a PCM16 sample: clipped, then rounded. */
export function toPcm16(a: number): number {
  // Math.round(a) for the rest, as a truncation of a positive number: floor(a + 0.5) shifted by
  // 32768 (exact in doubles for any |a| < 2^23). V8's Math.round cost ≈ 7 ns a sample here,
  // twice the filter itself; `| 0` is one instruction (bench/t2-journal.ts: assembly per chunk).
  return a >= 32767 ? 32767 : a <= -32768 ? -32768 : ((a + 32768.5) | 0) - 32768;
}

/** Reads a PCM16 LE byte buffer as samples (copying when unaligned). */
export function pcm16FromBytes(bytes: Uint8Array): Int16Array {
  const even = bytes.byteLength - (bytes.byteLength % 2);
  if (bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, even / 2);
  const copy = new Uint8Array(even);
  copy.set(bytes.subarray(0, even));
  return new Int16Array(copy.buffer);
}
