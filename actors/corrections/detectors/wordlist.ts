import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { startWorker } from '../../../core/worker.js';
import dictionary from 'dictionary-fr';
import nspell from 'nspell';

/**
 * The French Hunspell dictionary (dictionary-fr 3.0.0) as a compact sorted word list.
 *
 * nspell expands every affix rule of the French dictionary at load: ~3 million forms, 5–25 s of
 * CPU and ~460 MB of memory (measured). palabre needs only "is this form in the dictionary?", so
 * the expansion runs once per machine and its result — every allowed form, sorted — is cached as
 * one UTF-8 file (~35 MB). Later loads read that file and index its line starts: ~0.1 s and
 * ~50 MB, looked up by binary search.
 */

const DICT_VERSION = 'dictionary-fr@3.0.0';

export interface WordList {
  has(word: string): boolean;
  size: number;
  /** How it was obtained and how long that took. */
  source: 'cache' | 'built';
  loadMs: number;
}

let configuredDir: string | undefined;

/** PALABRE_CACHE_DIR from the configuration (set by the corrections service at start). */
export function setCacheDir(dir: string | undefined): void {
  configuredDir = dir;
}

export function cacheDir(): string {
  return configuredDir ?? process.env.PALABRE_CACHE_DIR ?? join(tmpdir(), 'palabre-cache');
}

export function cacheFile(): string {
  return join(cacheDir(), `${DICT_VERSION.replace(/[^a-z0-9.-]/gi, '_')}.words`);
}

interface NSpellInternals {
  data: Record<string, string[] | undefined>;
  flags: Record<string, string | undefined>;
}

/** Expands the dictionary with nspell and writes the sorted list of allowed forms. */
export function buildWordListFile(path: string): void {
  const spell = nspell(Buffer.from(dictionary.aff), Buffer.from(dictionary.dic)) as unknown as NSpellInternals;
  const forbidden = spell.flags.FORBIDDENWORD;
  const words: string[] = [];
  for (const [word, codes] of Object.entries(spell.data)) {
    if (forbidden && codes?.includes(forbidden)) continue;
    if (word.includes('\n')) continue;
    words.push(word);
  }
  // Default sort = UTF-16 code-unit order = UTF-8 byte order for the BMP (all of French).
  words.sort();
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${threadId}.tmp`;
  writeFileSync(tmp, words.join('\n'));
  renameSync(tmp, path); // atomic: concurrent builders never expose a half-written file
}

function load(bytes: Buffer, source: WordList['source'], t0: number): WordList {
  let count = 1;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) count++;
  const starts = new Uint32Array(count + 1);
  let n = 0;
  starts[n++] = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) starts[n++] = i + 1;
  starts[n] = bytes.length + 1; // sentinel: the end of the last word is starts[n] - 1
  // One scratch buffer for the query: no allocation per lookup.
  const scratch = Buffer.allocUnsafe(1024);
  const has = (word: string): boolean => {
    if (word.length > 250) return false;
    const len = scratch.write(word, 'utf8');
    const q = scratch.subarray(0, len);
    let lo = 0;
    let hi = count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const cmp = bytes.compare(q, 0, q.length, starts[mid]!, starts[mid + 1]! - 1);
      if (cmp === 0) return true;
      // compare(target…) orders the TARGET (q) against the source slice: > 0 means slice > q.
      if (cmp > 0) hi = mid - 1;
      else lo = mid + 1;
    }
    return false;
  };
  return { has, size: count, source, loadMs: performance.now() - t0 };
}

/** True when the expanded list is already cached (loading it is then fast). */
export function wordListCached(): boolean {
  return existsSync(cacheFile());
}

export function loadWordList(): WordList {
  const t0 = performance.now();
  const path = cacheFile();
  let source: WordList['source'] = 'cache';
  if (!existsSync(path)) {
    buildWordListFile(path);
    source = 'built';
  }
  return load(readFileSync(path), source, t0);
}

let building: Promise<void> | undefined;

/**
 * Makes sure the expanded list is cached, building it on a worker thread when it is not: the
 * expansion takes seconds of CPU, and on the event loop it would freeze every other surface of
 * the process (Skull replies, T2 audio) meanwhile. Single flight: concurrent callers share it.
 */
export function ensureWordListCached(): Promise<void> {
  if (wordListCached()) return Promise.resolve();
  building ??= new Promise<void>((resolve, reject) => {
    const worker = startWorker(import.meta.url, 'wordlistWorker', { workerData: { path: cacheFile() } });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (wordListCached()) resolve();
      else reject(new Error(`the spelling word list could not be built (worker exit code ${code})`));
    });
  }).finally(() => {
    building = undefined;
  });
  return building;
}
