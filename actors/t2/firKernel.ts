/**
 * The inner loop of the recording's resampler (actors/t2/resampler.ts) as a WebAssembly SIMD
 * function: the same multiplies and adds in the same order, four lanes at a time.
 *
 * Why: the polyphase filter (24 multiply-adds per output sample, 480 outputs per 20 ms chunk) is
 * most of the work of assembling a session's recording when it ends (bench/t2-journal.ts), the
 * one part of palabre's T2 CPU the bare relay has no counterpart for (bench/t2-ratio.ts
 * measures it). The filter runs in single precision: its inputs are 16-bit samples (exact in float32), its
 * outputs are rounded to 16 bits, and float32's 24-bit mantissa leaves the error of a 24-tap sum
 * far below half a step of the output (test/t2/audio.test.ts compares with a double-precision
 * filter). Four lanes of float32 are twice the work per instruction of two lanes of float64.
 *
 * The JavaScript loop keeps four float32 accumulators a0..a3 (taps k ≡ 0..3 mod 4, each product
 * and sum rounded with Math.fround) and sums them as ((a0 + a1) + a2) + a3; here (a0..a3) is one
 * f32x4 vector updated with `f32x4.mul` then `f32x4.add` — IEEE single operations, not fused —
 * so every output is bit-identical to the JavaScript loop's (rounding a double-precision sum or
 * product of two float32 values to float32 gives the single-precision result: 53 ≥ 2 × 24 + 2).
 *
 * The module is a few hundred bytes, encoded below rather than shipped as a binary so that the
 * source stays readable; `WebAssembly.validate` guards it, and the JavaScript loop is used where
 * WebAssembly SIMD is missing.
 *
 * Memory: taps (UP × TAPS_PER_PHASE float32, the flat reversed phases of the resampler) at 0,
 * the input (history then queued samples, as float32) at BUF_OFFSET, outputs (float32, before
 * rounding) right after the input.
 */

const BUF_OFFSET = 1024;

const PAGE = 65536;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const name = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'ascii')];

// Opcodes (WebAssembly core 2.0 and its fixed-width SIMD).
const I32 = 0x7f;
const V128 = 0x7b;
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const i32 = (n: number) => [0x41, ...sleb(n)];
const SIMD = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
const v128Load = (offset: number) => SIMD(0x00, 4, ...uleb(offset));
const F32X4_ADD = SIMD(0xe4);
const F32X4_MUL = SIMD(0xe6);
const lane = (l: number) => SIMD(0x1f, l); // f32x4.extract_lane
const F32_ADD = [0x92];
const F32_STORE = [0x38, 2, 0]; // align 4 bytes, offset 0

/**
 * run(u, limit, bufOff, outOff) → u: for u = u, u + DOWN… < limit (the 48 kHz position), the
 * output at u from phase (u mod UP) and input samples from u / UP on, written as float32 at outOff.
 */
function moduleBytes(up: number, down: number, tapsPerPhase: number): Uint8Array<ArrayBuffer> {
  if (tapsPerPhase % 4 !== 0) throw new Error('taps per phase must be a multiple of 4');
  const [U, LIMIT, BUF, OUT, I, Q, P, O, A] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const zero = SIMD(0x0c, ...new Array<number>(16).fill(0));
  const body: number[] = [
    ...get(OUT), ...set(O),
    0x02, 0x40, // block
    0x03, 0x40, // loop
    ...get(U), ...get(LIMIT), 0x4e, 0x0d, 1, // u >= limit: leave the block
    ...get(U), ...i32(up), 0x6e, ...set(I), // i = u / UP (newest input sample used)
    ...get(U), ...get(I), ...i32(up), 0x6c, 0x6b, ...i32(tapsPerPhase * 4), 0x6c, ...set(P), // this phase's taps
    ...get(BUF), ...get(I), ...i32(2), 0x74, 0x6a, ...set(Q), // &buf[i]
    ...zero, ...set(A),
  ];
  for (let k = 0; k < tapsPerPhase; k += 4) {
    // (a0, a1, a2, a3) += taps[k .. k+3] × buf[k .. k+3]
    body.push(...get(A), ...get(P), ...v128Load(4 * k), ...get(Q), ...v128Load(4 * k), ...F32X4_MUL, ...F32X4_ADD, ...set(A));
  }
  body.push(
    ...get(O),
    ...get(A), ...lane(0), ...get(A), ...lane(1), ...F32_ADD, // a0 + a1
    ...get(A), ...lane(2), ...F32_ADD, // + a2
    ...get(A), ...lane(3), ...F32_ADD, // + a3
    ...F32_STORE,
    ...get(O), ...i32(4), 0x6a, ...set(O),
    ...get(U), ...i32(down), 0x6a, ...set(U),
    0x0c, 0, // br loop
    0x0b, // end loop
    0x0b, // end block
    ...get(U),
    0x0b, // end function
  );
  const locals = vec([[4, I32], [1, V128]]);
  const code = [...locals, ...body];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // \0asm, version 1
    ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32]]), ...vec([[I32]])]])), // type: (i32 ×4) → i32
    ...section(3, vec([[0]])), // one function of type 0
    ...section(5, vec([[0x00, 1]])), // one memory, 1 page, no maximum
    ...section(7, vec([[...name('run'), 0x00, 0], [...name('mem'), 0x02, 0]])),
    ...section(10, vec([[...uleb(code.length), ...code]])),
  ]);
}

export interface FirKernel {
  /**
   * Runs the filter over `input` (history then queued samples) from position `u` to `limit`:
   * the outputs before rounding (a view valid until the next call) and the position after them.
   */
  run(input: Float32Array, u: number, limit: number): { u: number; out: Float32Array };
}

/** The SIMD kernel with these taps, or undefined where WebAssembly SIMD is not available. */
export function simdFirKernel(taps: Float32Array, up: number, down: number, tapsPerPhase: number): FirKernel | undefined {
  const bytes = moduleBytes(up, down, tapsPerPhase);
  if (typeof WebAssembly === 'undefined' || !WebAssembly.validate(bytes)) return undefined;
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes));
  const mem = instance.exports.mem as WebAssembly.Memory;
  const run = instance.exports.run as (u: number, limit: number, bufOff: number, outOff: number) => number;
  if (taps.byteLength > BUF_OFFSET) throw new Error('the taps overlap the input');
  new Float32Array(mem.buffer, 0, taps.length).set(taps);
  return {
    run(input, u, limit) {
      const outOff = BUF_OFFSET + input.byteLength;
      const count = Math.max(0, Math.ceil((limit - u) / down));
      const need = outOff + count * 4;
      if (need > mem.buffer.byteLength) mem.grow(Math.ceil((need - mem.buffer.byteLength) / PAGE));
      new Float32Array(mem.buffer, BUF_OFFSET, input.length).set(input);
      const end = run(u, limit, BUF_OFFSET, outOff);
      return { u: end, out: new Float32Array(mem.buffer, outOff, (end - u) / down) };
    },
  };
}
