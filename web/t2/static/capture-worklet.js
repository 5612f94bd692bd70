/* global AudioWorkletProcessor, sampleRate, registerProcessor */
// AudioWorklet: microphone capture → 16 kHz PCM16 LE mono frames of 20 ms (spec §7).
// The browser captures at 44.1 or 48 kHz: a windowed-sinc low-pass at 7 kHz removes what would
// alias above the 8 kHz Nyquist of 16 kHz, then the filtered signal is sampled at 16 kHz
// (linear interpolation between filtered samples), and Float32 is converted to Int16.
const TARGET_RATE = 16000;
const FRAME = 320; // 20 ms at 16 kHz
const TAPS = 63;

function lowpass(rate, cutoff) {
  const h = new Float32Array(TAPS);
  const mid = (TAPS - 1) / 2;
  const fc = cutoff / rate;
  let sum = 0;
  for (let i = 0; i < TAPS; i++) {
    const t = i - mid;
    const sinc = t === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * t) / (Math.PI * t);
    const w = 0.42 - 0.5 * Math.cos((2 * Math.PI * i) / (TAPS - 1)) + 0.08 * Math.cos((4 * Math.PI * i) / (TAPS - 1)); // Blackman
    h[i] = sinc * w;
    sum += h[i];
  }
  for (let i = 0; i < TAPS; i++) h[i] /= sum;
  return h;
}

class Pcm16Capture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.step = sampleRate / TARGET_RATE; // input samples per output sample
    this.h = lowpass(sampleRate, 7000);
    this.hist = new Float32Array(TAPS); // ring of the last TAPS input samples
    this.pos = 0;
    this.filtered = [0, 0]; // last two filtered samples (for interpolation)
    this.t = 0; // position of the next output, in input samples, relative to filtered[1]
    this.out = new Int16Array(FRAME);
    this.n = 0;
    this.port.onmessage = (e) => {
      if (e.data === 'flush' && this.n > 0) {
        this.port.postMessage(this.out.slice(0, this.n).buffer, []);
        this.n = 0;
      }
    };
  }

  process(inputs) {
    const input = inputs[0] && inputs[0][0];
    if (!input) return true;
    for (let i = 0; i < input.length; i++) {
      this.hist[this.pos] = input[i];
      this.pos = (this.pos + 1) % TAPS;
      let acc = 0;
      for (let k = 0; k < TAPS; k++) acc += this.h[k] * this.hist[(this.pos + k) % TAPS];
      this.filtered[0] = this.filtered[1];
      this.filtered[1] = acc;
      // Emit every output sample that falls between the previous and this filtered sample.
      while (this.t <= 1) {
        const v = this.filtered[0] + (this.filtered[1] - this.filtered[0]) * this.t;
        const s = Math.max(-1, Math.min(1, v));
        this.out[this.n++] = s < 0 ? s * 0x8000 : s * 0x7fff;
        if (this.n === FRAME) {
          const frame = this.out;
          this.port.postMessage(frame.buffer, [frame.buffer]);
          this.out = new Int16Array(FRAME);
          this.n = 0;
        }
        this.t += this.step;
      }
      this.t -= 1;
    }
    return true;
  }
}

registerProcessor('pcm16-capture', Pcm16Capture);
