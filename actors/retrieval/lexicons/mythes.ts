import { readFileSync } from 'node:fs';
import { fold } from '../../../machines/textFold.js';
import { LexiconError } from './lexiconErrors.js';

/**
 * MyThes thesaurus reader (LibreOffice's format, Debian's mythes-fr / mythes-en-us): an `.idx`
 * file (encoding, count, then `word|byte offset` lines) pointing into a `.dat` file where each
 * entry is `word|n` followed by n meaning lines `(pos)|synonym|synonym…`. The `.dat` stays one
 * Buffer (18 MB for English) and entries are parsed on lookup: loading every list as strings would
 * cost hundreds of MB. Read only to build the expansion table (expansionTable.ts), which is what
 * questions are expanded from.
 */
export interface Thesaurus {
  /** Synonyms of a folded word, closest meanings first; antonyms dropped. */
  synonyms(word: string): string[];
  /** Its folded headwords (to build the expansion table, expansionTable.ts). */
  words(): Iterable<string>;
  readonly entries: number;
}

const IDX_LINE = /^(.+)\|(\d+)$/;
/** WordNet-derived markers of the English thesaurus: kept words lose the marker, antonyms go. */
const MARKER = /\s*\((?:generic|similar|related) term\)$/;

export function readMythes(idxPath: string, datPath: string): Thesaurus {
  const idx = readFileSync(idxPath, 'utf8').split('\n');
  const dat = readFileSync(datPath);
  if (idx[0]?.trim() !== 'UTF-8') throw new LexiconError(idxPath, 1, `expected the encoding line "UTF-8", found "${(idx[0] ?? '').slice(0, 40)}"`);
  if (!/^\d+$/.test(idx[1]?.trim() ?? '')) throw new LexiconError(idxPath, 2, 'expected the entry count');
  const offsets = new Map<string, number[]>();
  for (let i = 2; i < idx.length; i++) {
    const line = idx[i]!;
    if (line === '') continue;
    const m = IDX_LINE.exec(line);
    const offset = m ? Number(m[2]) : NaN;
    if (!m || !(offset < dat.length)) throw new LexiconError(idxPath, i + 1, `expected "word|offset" within ${datPath}, found "${line.slice(0, 60)}"`);
    const key = fold(m[1]!);
    const list = offsets.get(key);
    if (list) list.push(offset);
    else offsets.set(key, [offset]);
  }
  if (offsets.size === 0) throw new LexiconError(idxPath, idx.length, 'no entries');

  function entryAt(offset: number): string[] {
    const end = dat.indexOf('\n', offset);
    const head = dat.toString('utf8', offset, end < 0 ? dat.length : end);
    const n = Number(head.split('|')[1]);
    if (!Number.isInteger(n) || n < 0) throw new LexiconError(datPath, 0, `entry at byte ${offset} is not "word|count": "${head.slice(0, 60)}"`);
    const out: string[] = [];
    let pos = end + 1;
    for (let k = 0; k < n && pos > 0 && pos < dat.length; k++) {
      const next = dat.indexOf('\n', pos);
      const meaning = dat.toString('utf8', pos, next < 0 ? dat.length : next).split('|').slice(1);
      for (const s of meaning) if (!s.endsWith('(antonym)')) out.push(s.replace(MARKER, ''));
      pos = next + 1;
    }
    return out;
  }

  return {
    entries: offsets.size,
    words: () => offsets.keys(),
    synonyms(word) {
      const seen = new Set<string>();
      for (const off of offsets.get(word) ?? []) for (const s of entryAt(off)) seen.add(s);
      seen.delete(word);
      return [...seen];
    },
  };
}
