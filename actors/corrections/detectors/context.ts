import type { Critere } from '../../../prompts/taxonomy.js';
import { CODE_CRITERE } from '../../../prompts/taxonomy.js';
import type { Production } from '../../../prompts/corrections/tasks.js';
import { candidateText } from '../production.js';

/** A word of the production with its offsets in the text. */
interface Token {
  text: string;
  lower: string;
  start: number;
  end: number;
}

/** A span of text (sentence, paragraph) with offsets. */
interface Span {
  text: string;
  start: number;
  end: number;
}

export interface DetectorContext {
  production: Production;
  /** Candidate's text (written text, or candidate turns of a transcript joined by newlines). */
  text: string;
  tokens: Token[];
  /** Non-empty lines/paragraphs (a line break separates paragraphs, as candidates type them). */
  paragraphs: Span[];
  /** Sentences: split on . ! ? … and on paragraph breaks. */
  sentences: Span[];
  consigne: string;
}

export interface Finding {
  code: string;
  critere: Critere;
  /** Exact substring of `text`. */
  extrait: string;
  correction: string;
  detecteur: string;
  /** Offset of the extrait in the candidate text (for overlap-based de-duplication). */
  start: number;
  /** Required by the taxonomy for `autre` (what the error is), absent otherwise. */
  description?: string;
}

export interface Detector {
  name: string;
  /** Codes this detector can emit (for the quality table). */
  codes: readonly string[];
  applies(p: Production): boolean;
  detect(ctx: DetectorContext): Finding[];
}

const WORD_RE = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD_RE)) {
    out.push({ text: m[0], lower: m[0].toLowerCase().replace(/’/g, "'"), start: m.index, end: m.index + m[0].length });
  }
  return out;
}

function spansOf(text: string, re: RegExp): Span[] {
  const out: Span[] = [];
  for (const m of text.matchAll(re)) {
    const raw = m[0];
    const lead = raw.length - raw.trimStart().length;
    const trimmed = raw.trim();
    if (trimmed) out.push({ text: trimmed, start: m.index + lead, end: m.index + lead + trimmed.length });
  }
  return out;
}

export function buildContext(production: Production): DetectorContext {
  const text = candidateText(production);
  return {
    production,
    text,
    tokens: tokenize(text),
    paragraphs: spansOf(text, /[^\n]+/g),
    // A sentence ends at . ! ? … (possibly repeated, possibly followed by a closing quote) or a line end.
    sentences: spansOf(text, /[^.!?…\n]+(?:[.!?…]+[»”"]?|(?=\n)|$)/g),
    consigne: production.consigne,
  };
}

/** Builds a finding; the criterion always comes from the taxonomy, never typed by a detector. */
export function finding(detecteur: string, code: string, ctx: DetectorContext, start: number, end: number, correction: string): Finding {
  const critere = CODE_CRITERE.get(code);
  if (!critere) throw new Error(`detector ${detecteur}: unknown code ${code}`);
  return { code, critere, extrait: ctx.text.slice(start, end), correction, detecteur, start };
}

/** The first (or last) few words of the text, as an exact span, for findings about the whole text. */
export function headSpan(ctx: DetectorContext, words = 6): [number, number] {
  const t = ctx.tokens;
  if (t.length === 0) return [0, Math.min(ctx.text.length, 20)];
  return [t[0]!.start, t[Math.min(words, t.length) - 1]!.end];
}

export function tailSpan(ctx: DetectorContext, words = 6): [number, number] {
  const t = ctx.tokens;
  if (t.length === 0) return [0, Math.min(ctx.text.length, 20)];
  return [t[Math.max(0, t.length - words)]!.start, t[t.length - 1]!.end];
}

export const isWritten = (p: Production): boolean => p.epreuve === 'EE';
export const always = (): boolean => true;

/**
 * A whole-word regex for French: `\b` is ASCII-only in JavaScript (it sees a boundary inside
 * « têtu »), so word edges are letter/digit look-arounds instead.
 */
export function wordRe(alternatives: string, flags = 'giu'): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives})(?![\\p{L}\\p{N}])`, flags);
}

const SKIPPED_BEFORE = new Set([' ', '\t', '\r', '\u00a0', '\u202f', '«', '"', '“', '(']);

/** The character before `offset`, skipping spaces, opening quotes and brackets ('' at the start). */
function previousSignificantChar(text: string, offset: number): string {
  let i = offset - 1;
  while (i >= 0 && SKIPPED_BEFORE.has(text[i]!)) i--;
  return i >= 0 ? text[i]! : '';
}

/** True at the start of the text, of a line, or after . ! ? … : (a capital is expected there). */
export function atSentenceStart(text: string, offset: number): boolean {
  const c = previousSignificantChar(text, offset);
  return c === '' || c === '\n' || '.!?…:'.includes(c);
}
