import MiniSearch, { type SearchResult } from 'minisearch';
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
    const terms = [...new Set(tokens.flatMap((t) => t.variants))];
    const results = this.mini.search(terms.join(' '));
    const hits: LexicalHit[] = [];
    for (const r of results.slice(0, limit)) hits.push({ id: String(r.id), bm25: r.score, score: this.coverageOf(r, weights) });
    return { hits, tokens };
  }

  /** Coverage of any passage (e.g. one found only by embeddings) for an analysed query. */
  scorePassage(tokens: QueryToken[], id: string): number {
    const terms = this.termsOf.get(id);
    if (!terms) return 0;
    const weights = weighTokens(tokens, (t) => this.df.get(t) ?? 0, this.size);
    return coverage(weights, new Set(terms), new Set());
  }

  private coverageOf(r: SearchResult, weights: ReturnType<typeof weighTokens>): number {
    const exact = new Set(r.terms.filter((t) => r.queryTerms.includes(t)));
    const fuzzy = new Set(r.queryTerms.filter((t) => !exact.has(t)));
    return coverage(weights, exact, fuzzy);
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
