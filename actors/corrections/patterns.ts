import { AUTRE, describeCode, type Critere } from '../../prompts/taxonomy.js';
import type { CorrectionStore } from './correctionsStore.js';

/**
 * Patterns (docs/corrections.md § Patterns and enrichment): a code is a confirmed pattern for a candidate when it appears in at
 * least 3 of their last 5 productions. `autre` is left out: two `autre` errors are two different
 * things by definition; recurring ones go to the enrichment review instead.
 */
export const PATTERN_WINDOW = 5;
export const PATTERN_MIN = 3;

interface CodeCount {
  code: string;
  critere: string;
  description: string | undefined;
  /** Productions (of the window) where the code appears. */
  productions: number;
}

export interface CandidatePatterns {
  candidateId: string;
  window: number;
  threshold: number;
  /** Productions considered (≤ window). */
  productions: number;
  confirmed: CodeCount[];
  /** Every code seen in the window, most frequent first. */
  counts: CodeCount[];
}

function patternsOf(candidateId: string, recent: Array<{ codes: Array<{ code: string; critere: string }> }>): CandidatePatterns {
  const window = recent.slice(0, PATTERN_WINDOW);
  const counts = new Map<string, CodeCount>();
  for (const prod of window) {
    for (const { code, critere } of new Map(prod.codes.map((c) => [c.code, c])).values()) {
      if (code === AUTRE) continue;
      const c = counts.get(code) ?? { code, critere, description: describeCode(code, critere as Critere), productions: 0 };
      c.productions += 1;
      counts.set(code, c);
    }
  }
  const all = [...counts.values()].sort((a, b) => b.productions - a.productions || a.code.localeCompare(b.code));
  return {
    candidateId,
    window: PATTERN_WINDOW,
    threshold: PATTERN_MIN,
    productions: window.length,
    confirmed: all.filter((c) => c.productions >= PATTERN_MIN),
    counts: all,
  };
}

export async function candidatePatterns(store: CorrectionStore, candidateId: string): Promise<CandidatePatterns> {
  return patternsOf(candidateId, await store.recentCodes(candidateId, PATTERN_WINDOW));
}

/** Enrichment procedure: an `autre` that recurs ≥ 3 times is proposed for a new code. */
export const AUTRE_MIN = 3;
const SIMILARITY = 0.5;

const STOPWORDS = new Set('le la les un une des du de d l à au aux en et ou que qui dans pour par sur avec sans ce cet cette ces son sa ses est sont pas ne n se s y il elle on'.split(' '));

/** Content-word stems of a description: accents folded, stopwords dropped, words cut to 6 letters. */
function descriptionKey(text: string): Set<string> {
  const words = text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().match(/\p{L}+/gu) ?? [];
  return new Set(words.filter((w) => w.length > 2 && !STOPWORDS.has(w)).map((w) => w.slice(0, 6)));
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

export interface AutreGroup {
  critere: string;
  count: number;
  /** The most frequent wording of the group. */
  representative: string;
  examples: string[];
}

/**
 * Groups `autre` descriptions of one criterion by similarity (Jaccard ≥ 0.5 on content-word
 * stems, against the group's first description) and keeps groups seen at least `min` times.
 */
export function groupAutre(rows: Array<{ critere: string; description: string }>, min = AUTRE_MIN): AutreGroup[] {
  const groups: Array<{ critere: string; key: Set<string>; items: string[] }> = [];
  for (const r of rows) {
    const key = descriptionKey(r.description);
    const g = groups.find((x) => x.critere === r.critere && jaccard(x.key, key) >= SIMILARITY);
    if (g) g.items.push(r.description);
    else groups.push({ critere: r.critere, key, items: [r.description] });
  }
  return groups
    .filter((g) => g.items.length >= min)
    .map((g) => {
      const freq = new Map<string, number>();
      for (const d of g.items) freq.set(d, (freq.get(d) ?? 0) + 1);
      const representative = [...freq.entries()].sort((a, b) => b[1] - a[1])[0]![0];
      return { critere: g.critere, count: g.items.length, representative, examples: [...new Set(g.items)].slice(0, 5) };
    })
    .sort((a, b) => b.count - a.count);
}

export async function autreReview(store: CorrectionStore): Promise<AutreGroup[]> {
  return groupAutre(await store.autreDescriptions());
}
