import { atSentenceStart, finding, isWritten, type Detector, type DetectorContext, type Finding, type Token } from './context.js';
import { ANGLICISMS, SMS_WORDS } from './lexicon.js';
import { ensureWordListCached, loadWordList, type WordList } from './wordlist.js';

/**
 * `faute_orthographe_courante` with the French Hunspell dictionary (dictionary-fr, expanded once by
 * nspell and cached as a sorted word list: see wordlist.ts). Loaded lazily on first use;
 * `warmSpelling()` loads it ahead of time.
 */

let words: WordList | undefined;
const cache = new Map<string, boolean>();

function wordList(): WordList {
  words ??= loadWordList();
  return words;
}

/** Loads the word list now; returns how long that took (0 when already loaded). */
export function warmSpelling(): number {
  if (words) return 0;
  return wordList().loadMs;
}

/** Builds the list off the event loop when needed (first run on a machine), then loads it. */
export async function ensureSpelling(): Promise<number> {
  if (words) return 0;
  await ensureWordListCached();
  return warmSpelling();
}

export function spellingLoadMs(): number {
  return words?.loadMs ?? 0;
}

/** nspell's casing rules: the form itself, Sentence case for an all-caps form, then lower case. */
function inDictionary(w: string): boolean {
  const list = wordList();
  if (list.has(w)) return true;
  if (w.toUpperCase() === w && list.has(w.charAt(0) + w.slice(1).toLowerCase())) return true;
  const lower = w.toLowerCase();
  return lower !== w && list.has(lower);
}

function known(word: string): boolean {
  let v = cache.get(word);
  if (v === undefined) {
    v = inDictionary(word);
    if (cache.size > 50_000) cache.clear();
    cache.set(word, v);
  }
  return v;
}

const ELISION = /^(l|d|j|qu|n|s|c|m|t|jusqu|lorsqu|puisqu|quoiqu|presqu)'/i;

/** True when the word (or each part of an elided or hyphenated form) is in the dictionary. */
export function isKnownWord(word: string, sentenceStart: boolean): boolean {
  const w = word.replace(/’/g, "'");
  if (known(w) || (sentenceStart && known(w.toLowerCase()))) return true;
  const stripped = w.replace(ELISION, '');
  if (stripped !== w) return stripped === '' || isKnownWord(stripped, sentenceStart);
  if (w.includes('-')) return w.split('-').every((part) => part === '' || part === 't' || isKnownWord(part, sentenceStart));
  return false;
}

const VARIANTS: Record<string, string[]> = {
  e: ['é', 'è', 'ê'], é: ['e', 'è', 'ê'], è: ['é', 'e', 'ê'], ê: ['e', 'é', 'è'], a: ['à', 'â'], à: ['a'], â: ['a'],
  i: ['î', 'ï'], î: ['i'], o: ['ô'], ô: ['o'], u: ['û', 'ù'], c: ['ç'], ç: ['c'],
};

/** A cheap suggestion (doubled/undoubled letters, accents, swapped letters): nspell's own suggest takes ~50 ms a word. */
export function suggest(word: string): string | undefined {
  const w = word.toLowerCase();
  const tries: string[] = [];
  for (let i = 0; i < w.length; i++) {
    const ch = w[i]!;
    if (/[bcdfglmnprst]/.test(ch)) {
      if (w[i + 1] === ch) tries.push(w.slice(0, i) + w.slice(i + 1));
      else tries.push(w.slice(0, i + 1) + ch + w.slice(i + 1));
    }
    for (const v of VARIANTS[ch] ?? []) tries.push(w.slice(0, i) + v + w.slice(i + 1));
    if (i + 1 < w.length) tries.push(w.slice(0, i) + w[i + 1] + ch + w.slice(i + 2));
  }
  tries.push(`${w}e`, `${w}s`, w.slice(0, -1));
  return tries.find((t) => t.length > 1 && known(t));
}

function isProperNounLike(t: Token, sentenceStart: boolean): boolean {
  if (/\d/.test(t.text) || t.text.length < 2) return true;
  if (t.text === t.text.toUpperCase()) return true; // acronyms: TCF, NCLC
  return /^\p{Lu}/u.test(t.text) && !sentenceStart;
}

export const orthographe: Detector = {
  name: 'orthographe',
  codes: ['faute_orthographe_courante'],
  applies: isWritten,
  detect(ctx: DetectorContext) {
    const out: Finding[] = [];
    for (const t of ctx.tokens) {
      const sentenceStart = atSentenceStart(ctx.text, t.start);
      if (isProperNounLike(t, sentenceStart) || t.lower in ANGLICISMS || SMS_WORDS.has(t.lower)) continue;
      if (isKnownWord(t.text, sentenceStart)) continue;
      // « montréal »: the word exists with a capital; that is the capitals detector's finding.
      if (known(t.text.charAt(0).toUpperCase() + t.text.slice(1))) continue;
      const fix = suggest(t.text.replace(ELISION, ''));
      out.push(finding('orthographe', 'faute_orthographe_courante', ctx, t.start, t.end, fix ? `Orthographe : « ${fix} ».` : `Vérifiez l'orthographe de « ${t.text} ».`));
    }
    return out;
  },
};
