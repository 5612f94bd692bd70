import type { Lex } from './sidecar.js';

/**
 * The words of a text with Grammalecte's morphology of each (the sidecar's `lex`), for palabre's
 * own agreement and mood rules (copula.ts, subjunctive.ts). Elided words are split from the word
 * they lean on (« qu'il » → « qu' », « il »), and punctuation is kept as a boundary token.
 *
 * A morphology string reads `>lemma/:tags/*`; the tags used here: `:N` noun, `:A` adjective,
 * `:Q` past participle, `:V…` verb (its flags, then the tense: `:Ip` indicative present, `:Iq`
 * imperfect, `:Is` simple past, `:If` future, `:K` conditional, `:Sp`/`:Sq` subjunctive),
 * `:G:D` determiner, `:G:Os` subject pronoun, `:W` adverb; gender `:m`/`:f`/`:e` (either),
 * number `:s`/`:p`/`:i` (either).
 */

export interface LexWord {
  text: string;
  lower: string;
  start: number;
  end: number;
  /** Punctuation (a boundary), not a word. */
  punct: boolean;
  /** Grammalecte's tag strings for the word (`:N:A:m:s`, `:V3_i__e_e_:Ip:3s`…); empty if unknown. */
  tags: string[];
}

const TOKEN = /(?:[cdjlmnst]|qu|jusqu|lorsqu|puisqu)['’](?=\p{L})|\p{L}+(?:-\p{L}+)*|\d+|[.,;:!?…«»"()]/giu;

export function lexWords(text: string, lex: Lex): LexWord[] {
  const out: LexWord[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const raw = m[0];
    const punct = /^[.,;:!?…«»"()]$/u.test(raw);
    const lower = raw.toLowerCase().replace(/’/g, "'");
    const morph = punct ? [] : (lex[raw] ?? lex[lower.replace(/'/g, '’')] ?? lex[lower] ?? []);
    out.push({ text: raw, lower, start: m.index, end: m.index + raw.length, punct, tags: morph.map((x) => x.split('/')[1] ?? '') });
  }
  return out;
}

type Gender = 'm' | 'f';
type NumberFeature = 's' | 'p';
export interface Features { gender?: Gender; number?: NumberFeature }

/** Gender and number letters of one tag (`:N:A:f:s` → f, s; `e`/`i` mean either and give undefined). */
export function featuresOf(tag: string): { g?: 'm' | 'f' | 'e'; n?: 's' | 'p' | 'i' } {
  const parts = tag.split(':');
  const g = parts.find((p) => p === 'm' || p === 'f' || p === 'e') as 'm' | 'f' | 'e' | undefined;
  const n = parts.find((p) => p === 's' || p === 'p' || p === 'i') as 's' | 'p' | 'i' | undefined;
  return { ...(g ? { g } : {}), ...(n ? { n } : {}) };
}

export const isNoun = (t: string) => t.startsWith(':N');
export const isAdjective = (t: string) => /^:(?:N:)?A\b|:Q:A|^:Q/.test(t) || t.includes(':A:');
export const isDeterminer = (t: string) => t.startsWith(':G:D');
export const isAdverb = (t: string) => t === ':W' || t === ':G:W' || t.startsWith(':W') || /^:G:W/.test(t);
export const isVerb = (t: string) => t.startsWith(':V');

/** The one value every reading agrees on, `undefined` when they differ or say "either". */
export function unanimous<T extends string>(values: Array<T | undefined>, either: string): T | undefined {
  const set = new Set(values);
  if (set.size !== 1) return undefined;
  const [v] = [...set];
  return v === undefined || v === either ? undefined : v;
}
