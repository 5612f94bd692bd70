/**
 * A French sentence splitter for short TTS replies. It must not cut after a title ("M. Dupont"),
 * an initial ("J. K. Rowling"), inside a number ("3,5", "3.5"), inside a URL or an e-mail, nor
 * after "etc." / "…" when the text goes on in lower case. A sentence ends at . ! ? … (possibly
 * followed by closing quotes or brackets) when whitespace and an upper-case letter, a digit or an
 * opening quote follow, or at the end of the text.
 */

/** Abbreviations that never end a sentence when a capital follows (titles and the like). */
const NEVER_FINAL = new Set([
  'm', 'mm', 'mme', 'mmes', 'mlle', 'mlles', 'dr', 'pr', 'me', 'st', 'ste', 'mgr', 'cf', 'ex', 'p', 'pp',
  'n', 'no', 'vol', 'chap', 'fig', 'av', 'apr', 'env', 'cie', 'éd', 'ed', 'réf', 'ref', 'tél', 'tel', 'c.-à-d', 'c-à-d',
]);

const TERMINAL = new Set(['.', '!', '?', '…']);
const CLOSERS = new Set(['»', '"', '”', '’', "'", ')', ']', '\u202f', '\u00a0']);
const URLISH = /(?:https?:\/\/|www\.)\S*[^\s.,;:!?…»)"']|[\w.+-]+@[\w-]+(?:\.[\w-]+)+/gi;

/**
 * Whether `text` may hold a URL or an e-mail address: URLISH needs `@`, `://` or `www.`. Most
 * replies have none, and the URL passes run on every Skull reply.
 */
export function mayHoldUrl(text: string): boolean {
  return text.includes('@') || text.includes('://') || /www\./i.test(text);
}

/** Replaces URLs and e-mails by same-length placeholders so that their dots never split. */
function maskUrls(text: string): string {
  if (!mayHoldUrl(text)) return text;
  return text.replace(URLISH, (m) => 'u'.repeat(m.length));
}

function startsSentence(ch: string | undefined): boolean {
  if (ch === undefined) return false;
  if (/[«"“(\d]/.test(ch)) return true;
  return ch !== ch.toLowerCase() && ch === ch.toUpperCase();
}

/** The word just before position `dot` (exclusive), lower-cased. */
function wordBefore(masked: string, dot: number): string {
  let i = dot - 1;
  while (i >= 0 && /[\p{L}\d.-]/u.test(masked[i]!)) i--;
  return masked.slice(i + 1, dot).toLowerCase();
}

export function splitSentences(input: string): string[] {
  const text = input.replace(/\s+/g, ' ').trim();
  if (!text) return [];
  const masked = maskUrls(text);
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < masked.length; i++) {
    const ch = masked[i]!;
    if (!TERMINAL.has(ch)) continue;
    // Consume a run of terminals ("?!", "...") and closers ("! »").
    let end = i + 1;
    for (;;) {
      if (end < masked.length && (TERMINAL.has(masked[end]!) || CLOSERS.has(masked[end]!))) end++;
      // "! »": a space then a closing guillemet still belongs to this sentence.
      else if (masked[end] === ' ' && (masked[end + 1] === '»' || masked[end + 1] === '”')) end += 2;
      else break;
    }
    if (end >= masked.length) break;
    if (masked[end] !== ' ') continue; // "3.5", "a.b", "…suite"
    const next = masked[end + 1];
    if (!startsSentence(next)) {
      i = end - 1;
      continue;
    }
    if (ch === '.' && end === i + 1) {
      const word = wordBefore(masked, i);
      // A lone capital ("J.") is an initial; titles never end a sentence.
      if (NEVER_FINAL.has(word) || /^\p{Lu}$/u.test(text.slice(i - word.length, i))) {
        i = end - 1;
        continue;
      }
    }
    out.push(text.slice(start, end).trim());
    start = end + 1;
    i = end;
  }
  const rest = text.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

/** True when the sentence ends with terminal punctuation (possibly followed by closers). */
export function isComplete(sentence: string): boolean {
  let i = sentence.length - 1;
  while (i >= 0 && CLOSERS.has(sentence[i]!)) i--;
  return i >= 0 && TERMINAL.has(sentence[i]!);
}

/**
 * Keeps at most `max` sentences. A trailing fragment cut mid-sentence (a reply stopped by the token
 * limit) is dropped when a complete sentence precedes it; otherwise it is closed with "…".
 */
export function limitSentences(text: string, max: number): string {
  const limit = Math.max(1, max);
  const flat = text.replace(/\s+/g, ' ').trim();
  // A complete text with no more terminal marks than `limit` has at most `limit` sentences (each
  // one ends with at least one of them) and its last one is complete: it comes back as it is,
  // without splitting: most replies are two or three short sentences.
  if (isComplete(flat) && terminalsAtMost(flat, limit)) return flat;
  let sentences = splitSentences(flat).slice(0, limit);
  const last = sentences[sentences.length - 1];
  if (last !== undefined && !isComplete(last)) {
    if (sentences.length > 1) sentences = sentences.slice(0, -1);
    else sentences = [`${last.replace(/[\s,;:–-]+$/, '')}…`];
  }
  return sentences.join(' ');
}

function terminalsAtMost(text: string, limit: number): boolean {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (TERMINAL.has(text[i]!) && ++n > limit) return false;
  return true;
}
