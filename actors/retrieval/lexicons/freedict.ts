import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fold } from '../../../machines/textFold.js';
import { LexiconError } from './lexiconErrors.js';

/**
 * FreeDict bilingual dictionary in dictd format (Debian's dict-freedict-fra-eng / -eng-fra): an
 * `.index` of `headword<TAB>offset<TAB>length` (dictd's base64 numbers) into a `.dict.dz`
 * (dictzip, which is gzip: read whole, ~0.6 MB). An entry is its headword line (pronunciation,
 * part of speech) then translation lines, numbered by sense (`1. cede, give up`) or not.
 */
export type Translations = Map<string, string[]>;

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function b64number(s: string): number {
  let n = 0;
  for (const c of s) {
    const d = B64.indexOf(c);
    if (d < 0) return NaN;
    n = n * 64 + d;
  }
  return n;
}

export function readFreedict(indexPath: string, dictPath: string): Translations {
  let dict: Buffer;
  try {
    dict = gunzipSync(readFileSync(dictPath));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err;
    throw new LexiconError(dictPath, 0, `not a dictzip/gzip file (${err instanceof Error ? err.message : String(err)})`);
  }
  const out: Translations = new Map();
  const lines = readFileSync(indexPath, 'utf8').split('\n');
  lines.forEach((line, i) => {
    if (line === '') return;
    const [head, off, len] = line.split('\t');
    const start = b64number(off ?? '');
    const size = b64number(len ?? '');
    if (!head || !Number.isFinite(start) || !Number.isFinite(size) || start + size > dict.length) {
      throw new LexiconError(indexPath, i + 1, `expected "headword<TAB>offset<TAB>length" within ${dictPath}, found "${line.slice(0, 60)}"`);
    }
    if (head.startsWith('00database')) return;
    const body = dict.toString('utf8', start, start + size).split('\n').slice(1);
    const words = body
      .map((l) => l.replace(/^\s*\d+\.\s*/, '').trim())
      .filter((l) => l !== '')
      .flatMap((l) => l.split(/,\s*/));
    const key = fold(head);
    out.set(key, [...new Set([...(out.get(key) ?? []), ...words])]);
  });
  if (out.size === 0) throw new LexiconError(indexPath, lines.length, 'no entries');
  return out;
}
