import MiniSearch from 'minisearch';
import { analyzeQuery, analyzeText, type QueryToken } from './analyze.js';
import { coverage, weighTokens } from './coverage.js';
import type { PassageRecord } from './ingest.js';

/**
 * BM25 over passages with MiniSearch (BM25+). Text is analysed here, per passage language, and
 * handed to MiniSearch as space-separated terms, so MiniSearch's own tokenizer and processTerm are
 * the identity. MiniSearch ranks; `coverage` gives the normalised score (see coverage.ts).
 */
export interface LexicalHit {
  id: string;
  /** Raw BM25 score (MiniSearch), only meaningful for ranking within one query. */
  bm25: number;
  /** Normalised score in [0, 1]. */
  score: number;
}

interface IndexedPassage {
  id: string;
  body: string;
  heading: string;
}

/** BM25 candidates reranked with the coverage score, and the weight coverage gets (see `search`). */
const RERANK_POOL = 20;
const RERANK_COVERAGE_WEIGHT = 0.5;

/** Index size from which query terms are pruned (see `selective`). */
export const PRUNE_FROM = 10_000;
/** Tunables of `selective` (bench/retrieval.ts sweeps them). */
export const pruning = { maxDfShare: 0.01, maxTerms: 8 };

const split = (s: string): string[] => (s ? s.split(' ') : []);
const identity = (t: string): string => t;

/** One edit for stems of 5+ letters (requet/request, ressourc/resourc), none for short ones. */
const fuzzyFor = (term: string): number | false => (term.length >= 5 ? 1 : false);

const SEARCH_OPTIONS = {
  boost: { heading: 1.5 },
  fuzzy: fuzzyFor,
  weights: { fuzzy: 0.3, prefix: 0.3 },
  combineWith: 'OR' as const,
  tokenize: split,
  processTerm: identity,
};

function newMiniSearch(): MiniSearch<IndexedPassage> {
  return new MiniSearch<IndexedPassage>({
    fields: ['body', 'heading'],
    storeFields: [],
    tokenize: split,
    processTerm: identity,
    searchOptions: SEARCH_OPTIONS,
  });
}

export interface LexicalIndexJSON {
  mini: unknown;
  df: Array<[string, number]>;
}

export class LexicalIndex {
  private mini = newMiniSearch();
  /** Passages holding each term, for the coverage weights. */
  private readonly df = new Map<string, number>();
  /** Terms of each passage, to undo df on removal and to score passages found by embeddings. */
  private readonly termsOf = new Map<string, string[]>();

  get size(): number {
    return this.mini.documentCount;
  }

  private analyse(p: PassageRecord): { body: string[]; heading: string[] } {
    return { body: analyzeText(p.text, p.lang), heading: analyzeText(p.section, p.lang) };
  }

  add(passages: PassageRecord[]): void {
    const docs: IndexedPassage[] = [];
    for (const p of passages) {
      const { body, heading } = this.analyse(p);
      const unique = [...new Set([...body, ...heading])];
      this.termsOf.set(p.id, unique);
      for (const t of unique) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      docs.push({ id: p.id, body: body.join(' '), heading: heading.join(' ') });
    }
    this.mini.addAll(docs);
  }

  remove(ids: string[]): void {
    for (const id of ids) {
      const terms = this.termsOf.get(id);
      if (!terms) continue;
      for (const t of terms) {
        const n = (this.df.get(t) ?? 1) - 1;
        if (n <= 0) this.df.delete(t);
        else this.df.set(t, n);
      }
      this.termsOf.delete(id);
      this.mini.discard(id);
    }
  }

  has(id: string): boolean {
    return this.termsOf.has(id);
  }

  /** Top `limit` passages by BM25, each with its normalised coverage score. */
  search(query: string, limit: number): { hits: LexicalHit[]; tokens: QueryToken[] } {
    const tokens = analyzeQuery(query);
    if (tokens.length === 0 || this.size === 0) return { hits: [], tokens };
    const weights = weighTokens(tokens, (t) => this.df.get(t) ?? 0, this.size);
    const all = [...new Set(tokens.flatMap((t) => t.variants))];
    const terms = this.size >= PRUNE_FROM ? this.selective(all) : all;
    // Fuzzy matching only for stems the index does not hold (cognates, typos): on a large index,
    // fuzzy expansion of every term is what made queries slow (bench/retrieval.ts).
    const results = this.mini.search(terms.join(' '), { fuzzy: (t) => (this.df.has(t) ? false : fuzzyFor(t)) });
    const hits: LexicalHit[] = [];
    const wanted = new Set(all);
    // Rerank a pool of BM25's best by BM25 (scaled to the top hit) and coverage, half each: BM25
    // alone favours passages repeating one word; coverage alone ignores how much a word is used.
    for (const r of results.slice(0, Math.max(limit, RERANK_POOL))) {
      // Exact matches from the passage's own terms: pruned terms still count for the score.
      const own = this.termsOf.get(String(r.id)) ?? [];
      const exact = new Set(own.filter((t) => wanted.has(t)));
      const fuzzy = new Set(r.queryTerms.filter((t) => !exact.has(t)));
      hits.push({ id: String(r.id), bm25: r.score, score: coverage(weights, exact, fuzzy) });
    }
    const top = hits[0]?.bm25 || 1;
    const rank = (h: LexicalHit): number => RERANK_COVERAGE_WEIGHT * h.score + (1 - RERANK_COVERAGE_WEIGHT) * (h.bm25 / top);
    hits.sort((a, b) => rank(b) - rank(a));
    hits.length = Math.min(hits.length, limit);
    return { hits, tokens };
  }

  /**
   * Each query word with its document frequency (best stem or translation; 0 = the corpus never
   * uses it) and whether passage `id` holds it. The guard's cues (actors/retrieval/relevance.ts)
   * are computed from this.
   */
  explain(tokens: QueryToken[], id: string): Array<{ word: string; df: number; weight: number; matched: boolean }> {
    const terms = new Set(this.termsOf.get(id) ?? []);
    return weighTokens(tokens, (t) => this.df.get(t) ?? 0, this.size).map(({ token, weight }) => ({
      word: token.word,
      df: Math.max(0, ...token.variants.map((v) => this.df.get(v) ?? 0)),
      weight,
      matched: token.variants.some((v) => terms.has(v)),
    }));
  }

  /** Coverage of any passage (e.g. one found only by embeddings) for an analysed query. */
  scorePassage(tokens: QueryToken[], id: string): number {
    const terms = this.termsOf.get(id);
    if (!terms) return 0;
    const weights = weighTokens(tokens, (t) => this.df.get(t) ?? 0, this.size);
    return coverage(weights, new Set(terms), new Set());
  }

  /**
   * On a large index, ranking with every query term costs their whole posting lists (MiniSearch
   * scores every match; there is no top-k pruning). Terms held by more than `pruning.maxDfShare` of the
   * passages barely change BM25's order, so candidates come from the rarer terms only.
   */
  private selective(terms: string[]): string[] {
    const n = this.size;
    const byDf = terms.map((t) => ({ t, df: this.df.get(t) ?? 0 })).sort((a, b) => a.df - b.df);
    const kept = byDf.filter((x) => x.df <= n * pruning.maxDfShare).slice(0, pruning.maxTerms);
    return (kept.length > 0 ? kept : byDf.slice(0, 2)).map((x) => x.t);
  }

  toJSON(): LexicalIndexJSON {
    return { mini: this.mini.toJSON(), df: [...this.df] };
  }

  /** Restores an index; `passages` rebuild the per-passage term lists (cheap next to BM25 build). */
  static fromJSON(json: LexicalIndexJSON, passages: PassageRecord[]): LexicalIndex {
    const idx = new LexicalIndex();
    idx.mini = MiniSearch.loadJS(json.mini as Parameters<typeof MiniSearch.loadJS>[0], {
      fields: ['body', 'heading'],
      storeFields: [],
      tokenize: split,
      processTerm: identity,
      searchOptions: SEARCH_OPTIONS,
    });
    for (const [t, n] of json.df) idx.df.set(t, n);
    for (const p of passages) {
      const { body, heading } = idx.analyse(p);
      idx.termsOf.set(p.id, [...new Set([...body, ...heading])]);
    }
    return idx;
  }
}
