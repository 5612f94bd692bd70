import { createRequire } from 'node:module';
import type { Tiktoken, TiktokenBPE } from 'js-tiktoken/lite';
import type { TokenCounter } from '../../prompts/skull/contextPrompt.js';

/**
 * Token counting for the Skull prompt budget, with the o200k_base encoding (GPT-4o, GPT-4.1,
 * o-series and GPT-5 families; for Claude and Gemini, whose tokenizers are not public, it is an
 * approximation). The encoder costs ~140 MB of RSS and ~0.5 s to build, far too much for a Pi
 * Zero 2 W, so it is loaded only when it can change the answer: a BPE token always covers at least
 * one UTF-8 byte, hence `tokens ≤ bytes`, and a text whose byte length fits the budget fits
 * without counting. Only a longer prompt loads the encoder (once, synchronously) and is then
 * counted and cut exactly.
 */

const require = createRequire(import.meta.url);
let encoder: Tiktoken | undefined;

function encoder200k(): Tiktoken {
  if (!encoder) {
    const { Tiktoken: Enc } = require('js-tiktoken/lite') as { Tiktoken: new (ranks: TiktokenBPE) => Tiktoken };
    const ranks = require('js-tiktoken/ranks/o200k_base') as TiktokenBPE | { default: TiktokenBPE };
    encoder = new Enc('default' in ranks ? ranks.default : ranks);
  }
  return encoder;
}

/** Whether the encoder has been loaded in this process (RSS tests and the benchmark read it). */
export function encoderLoaded(): boolean {
  return encoder !== undefined;
}

/** UTF-8 byte length, counted without encoding the text (no buffer per prompt). */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export const o200k: TokenCounter = {
  count: (text) => encoder200k().encode(text).length,
  // A UTF-16 code unit is at most 3 UTF-8 bytes: a short text fits without measuring it.
  fits: (text, max) => text.length * 3 <= max || byteLength(text) <= max || encoder200k().encode(text).length <= max,
  cut(text, max) {
    if (max <= 0) return '';
    if (byteLength(text) <= max) return text;
    const enc = encoder200k();
    const ids = enc.encode(text);
    if (ids.length <= max) return text;
    // A cut can split a multi-byte character: drop the replacement character it leaves.
    return enc.decode(ids.slice(0, max)).replace(/\uFFFD+$/, '');
  },
};
