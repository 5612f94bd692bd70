import MiniSearch from 'minisearch';
import { analyzeQuery, analyzeText, type QueryToken } from './analyze.js';
import { stem } from './stem.js';
import { coverage, idf, weighTokens } from './coverage.js';
import type { PassageRecord } from '../../machines/chatContract.js';
import type { Lexicon } from './lexicons/lexicon.js';
import { analysePassage, RERANK_MODEL, rerankScore, textFeatures, type AnalysedPassage, type PassageFeature } from './rerank.js';

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

/**
 * Tunables of the three ways of finding passages that do not use the question's words, measured in
 * bench/rag-quality.ts (docs/docs-assistant.md § Ranking):
 * - `expansion`: dictionary words related to a question word (lexicons/), searched when the corpus
 *   uses them, at most `translations` and `synonyms` per word, none held by more than `maxDfShare`
 *   of the passages (a synonym as common as « données » ranks nothing), at BM25 weight `boost`;
 * - `feedback`: pseudo-relevance feedback (RM3-like): the `terms` most distinctive terms of the
 *   first `docs` passages are added to a second search at weight `boost` (0 docs = off);
 * - `fileWeight`: a passage's rank gains this share of the best rank of another passage of the same
 *   file (a page matching in several places is more likely the page asked about);
 * - `perFile`: at most this many passages of one file among the results (0 = no cap), the rest
 *   after them: five passages of one page leave no room for the page that answers. 1 since the
 *   ninth round (2 before): the five sources are five pages;
 * - `judgedPerFile`: the same cap for the passages the guard's confidence reads (`search`'s
 *   `judged`): one per file changes what its features mean (separation fell on the left-out
 *   sets); among 1–4 and no cap, 3 separated best on the left-out sets (§ Ninth round).
 * And the first stage's general parameters (fitted by bench/rag-tune.ts, 2-fold on the tuning data):
 * - `bm25`: MiniSearch's BM25+ k1 (`k`), length normalisation `b` and `d`; `heading`: weight of heading words;
 * - `pool`: how many BM25 candidates are reranked; `coverage`: the coverage score's share of the
 *   reranking (the rest is BM25 scaled to the top hit).
 * - `rerank`: since the fifth round the candidates are ordered by the learned reranker instead
 *   (rerank.ts, its own pool); `pool`, `coverage`, `feedback` and `fileWeight` then do nothing.
 *   Off, the ranking of rounds 3–4 (bench/rag-rerank.ts compares the two).
 */
export const ranking = {
  bm25: { k: 1.2, b: 0.7, d: 0.5 },
  heading: 1.5,
  pool: 20,
  coverage: 0.5,
  expansion: { translations: 2, synonyms: 1, maxDfShare: 0.05, boost: 0.2, maxWordDf: Infinity },
  feedback: { docs: 0, terms: 8, boost: 0.2 },
  fileWeight: 0,
  perFile: 1,
  judgedPerFile: 3,
  rerank: true,
};

/** Passages whose reranking analysis is memoised (LexicalIndex.analysedPassage). */
const ANALYSED_MAX = 4096;

/** Index size from which query terms are pruned (see `selective`). */
export const PRUNE_FROM = 10_000;
/** Tunables of `selective` (bench/retrieval.ts sweeps them). */
export const pruning = { maxDfShare: 0.01, maxTerms: 8 };

const split = (s: string): string[] => (s ? s.split(' ') : []);
const identity = (t: string): string => t;

/**
 * One edit for stems of 5+ letters (requet/request, ressourc/resourc), none for short ones nor for
 * dotted numbers: « 4.1.3 » is another version than « 4.1.2 », not a typo of it.
 */
const fuzzyFor = (term: string): number | false => (term.length >= 5 && !/^\d+\./.test(term) ? 1 : false);

const FIELDS = ['body', 'heading'];

const SEARCH_OPTIONS = {
  boost: { heading: ranking.heading },
  fuzzy: fuzzyFor,
  weights: { fuzzy: 0.3, prefix: 0.3 },
  combineWith: 'OR' as const,
  tokenize: split,
  processTerm: identity,
};

function newMiniSearch(): MiniSearch<IndexedPassage> {
  return new MiniSearch<IndexedPassage>({
    fields: FIELDS,
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

const fileOf = (id: string): string => id.slice(0, id.lastIndexOf(':'));

/** One BM25 candidate with its raw BM25 and its reranking features. */
export interface Candidate {
  id: string;
  bm25: number;
  features: Record<PassageFeature, number>;
}

/** Order kept, but no more than `perFile` passages of one file before every file had its turn. */
export function diversify<T extends { id: string }>(hits: T[], perFile: number): T[] {
  const seen = new Map<string, number>();
  const first: T[] = [];
  const rest: T[] = [];
  for (const h of hits) {
    const n = (seen.get(fileOf(h.id)) ?? 0) + 1;
    seen.set(fileOf(h.id), n);
    (n <= perFile ? first : rest).push(h);
  }
  return [...first, ...rest];
}

/** How many of a word's translations, in the dictionary's order, count as the word in `heldTogether` (bench/rag-scope.ts). */
const heldTranslations = { n: 0 };

export class LexicalIndex {
  private mini = newMiniSearch();
  /** Passages holding each term, for the coverage weights. */
  private readonly df = new Map<string, number>();
  /** Terms of each passage, to undo df on removal and to score passages found by embeddings. */
  private readonly termsOf = new Map<string, string[]>();
  /** The passages themselves (shared with the retriever, not copied): the reranker reads their text. */
  private readonly records = new Map<string, PassageRecord>();
  /** Passages of each file holding each term (the reranker's file coverage, without reading the file's passages). */
  private readonly fileDf = new Map<string, Map<string, number>>();
  /**
   * Passages analysed for the reranker, kept for the most recently reranked ones only (a bounded
   * memo, not an index: the same result as analysing them again, without the cost).
   */
  private readonly analysed = new Map<string, AnalysedPassage>();
  /** Dictionaries for query expansion (lexicons/); none = the question's own words only. */
  private lexicon: Lexicon | undefined;

  expandWith(lexicon: Lexicon | undefined): void {
    this.lexicon = lexicon;
  }

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
      this.track(p);
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
      this.records.delete(id);
      const counts = this.fileDf.get(fileOf(id));
      for (const t of terms) {
        const n = (counts?.get(t) ?? 1) - 1;
        if (n <= 0) counts?.delete(t);
        else counts?.set(t, n);
      }
      this.analysed.delete(id);
      this.mini.discard(id);
    }
  }

  private track(p: PassageRecord): void {
    this.records.set(p.id, p);
    const f = fileOf(p.id);
    if (!this.fileDf.has(f)) this.fileDf.set(f, new Map());
    const counts = this.fileDf.get(f)!;
    for (const t of this.termsOf.get(p.id) ?? []) counts.set(t, (counts.get(t) ?? 0) + 1);
    this.analysed.delete(p.id);
  }

  private analysedPassage(id: string): AnalysedPassage {
    let a = this.analysed.get(id);
    if (a) {
      // Most recent last: the first key is the least recently used.
      this.analysed.delete(id);
    } else {
      const r = this.records.get(id);
      a = r ? analysePassage(r) : { heading: [], sentences: [] };
      if (this.analysed.size >= ANALYSED_MAX) this.analysed.delete(this.analysed.keys().next().value!);
    }
    this.analysed.set(id, a);
    return a;
  }

  has(id: string): boolean {
    return this.termsOf.has(id);
  }

  /**
   * Top `limit` passages by BM25, each with its normalised coverage score; with the reranker also
   * `judged`, the same ranking under `ranking.judgedPerFile` (the passages the confidence reads).
   */
  search(query: string, limit: number): { hits: LexicalHit[]; tokens: QueryToken[]; judged?: LexicalHit[] } {
    if (ranking.rerank) return this.reranked(query, limit);
    const tokens = this.expand(analyzeQuery(query));
    if (tokens.length === 0 || this.size === 0) return { hits: [], tokens };
    const weights = weighTokens(tokens, (t) => this.df.get(t) ?? 0, this.size);
    const all = [...new Set(tokens.flatMap((t) => t.variants))];
    const own = new Set(all);
    const related = [...new Set(tokens.flatMap((t) => t.related ?? []))].filter((t) => !own.has(t));
    const wanted = new Set([...all, ...related]);
    const pool = Math.max(limit, ranking.pool);
    let hits = this.rank(this.lookup(all, related, []), weights, wanted, pool);
    const fb = ranking.feedback;
    if (fb.docs > 0 && hits.length > 0) {
      const extra = this.feedbackTerms(hits.slice(0, fb.docs), wanted, fb.terms);
      if (extra.length > 0) hits = this.rank(this.lookup(all, related, extra), weights, wanted, pool);
    }
    if (ranking.perFile > 0) hits = diversify(hits, ranking.perFile);
    hits.length = Math.min(hits.length, limit);
    return { hits, tokens };
  }

  /** The learned reranking of BM25's first candidates (rerank.ts), then the per-file cap. */
  private reranked(query: string, limit: number): { hits: LexicalHit[]; tokens: QueryToken[]; judged: LexicalHit[] } {
    const pool = RERANK_MODEL.pool;
    // More than the pool only for the hybrid ranking's fusion (limit 50): those follow in BM25 order.
    const { tokens, rows } = this.candidates(query, Math.max(pool, limit), pool);
    const scores = new Map(rows.slice(0, pool).map((r) => [r.id, rerankScore(r.features)]));
    const ordered = [...rows.slice(0, pool).sort((a, b) => scores.get(b.id)! - scores.get(a.id)!), ...rows.slice(pool)];
    const all: LexicalHit[] = ordered.map((r) => ({ id: r.id, bm25: r.bm25, score: r.features.coverage }));
    const capped = (perFile: number): LexicalHit[] => (perFile > 0 ? diversify(all, perFile) : [...all]).slice(0, limit);
    return { hits: capped(ranking.perFile), tokens, judged: capped(ranking.judgedPerFile) };
  }

  /**
   * The first `pool` BM25 candidates in BM25 order, each with what a learned reranker may read
   * (rerank.ts PASSAGE_FEATURES, learned by bench/rag-rerank.ts); `featurePool`: the candidates
   * the same-file feature compares with.
   */
  candidates(query: string, pool: number, featurePool = pool): { tokens: QueryToken[]; rows: Candidate[] } {
    const tokens = this.expand(analyzeQuery(query));
    if (tokens.length === 0 || this.size === 0) return { tokens, rows: [] };
    const weights = weighTokens(tokens, (t) => this.df.get(t) ?? 0, this.size);
    const all = [...new Set(tokens.flatMap((t) => t.variants))];
    const own = new Set(all);
    const related = [...new Set(tokens.flatMap((t) => t.related ?? []))].filter((t) => !own.has(t));
    const wanted = new Set([...all, ...related]);
    const results = this.lookup(all, related, []).slice(0, pool);
    const top = results[0]?.score || 1;
    const total = weights.reduce((n, w) => n + w.weight, 0) || 1;
    const rows = results.map((r, i) => {
      const terms = this.termsOf.get(r.id) ?? [];
      const exact = new Set(terms.filter((t) => wanted.has(t)));
      const fuzzy = new Set(r.queryTerms.filter((t) => !exact.has(t)));
      const analysed = this.analysedPassage(r.id);
      const heading = new Set(analysed.heading.filter((t) => wanted.has(t)));
      const text = textFeatures(tokens, weights.map((w) => w.weight), analysed);
      const viaRelated = weights.filter(({ token }) => !token.variants.some((v) => exact.has(v)) && token.related?.some((v) => exact.has(v))).reduce((n, w) => n + w.weight, 0);
      return {
        id: r.id,
        bm25: r.score,
        features: {
          coverage: coverage(weights, exact, fuzzy),
          bm25: r.score / top,
          bm25Rank: 1 / (1 + i),
          heading: coverage(weights, heading, new Set()),
          related: viaRelated / total,
          length: Math.log(1 + terms.length) / 6,
          fileBest: 0,
          fileCoverage: 0,
          ...text,
        },
      };
    });
    // The whole file's terms that the question asks for: its coverage (a page answering across sections).
    const fileTerms = new Map<string, Set<string>>();
    for (const row of rows) {
      const f = fileOf(row.id);
      if (fileTerms.has(f)) continue;
      const counts = this.fileDf.get(f);
      fileTerms.set(f, new Set([...wanted].filter((t) => (counts?.get(t) ?? 0) > 0)));
    }
    for (const row of rows) {
      const f = fileOf(row.id);
      // Among the reranked pool only, as the model was fitted.
      row.features.fileBest = Math.max(0, ...rows.slice(0, featurePool).filter((o) => o !== row && fileOf(o.id) === f).map((o) => o.features.coverage));
      row.features.fileCoverage = coverage(weights, fileTerms.get(f)!, new Set());
    }
    return { tokens, rows };
  }

  /** One MiniSearch query: the question's terms at weight 1, related and feedback terms lower. */
  private lookup(own: string[], related: string[], feedback: string[]): Array<{ id: string; score: number; queryTerms: string[] }> {
    const large = this.size >= PRUNE_FROM;
    const terms = large ? this.selective(own) : own;
    // On a large index, dictionary words obey the same pruning as the question's own rare words.
    const rare = (t: string): boolean => !large || (this.df.get(t) ?? 0) <= this.size * pruning.maxDfShare;
    const boost = new Map<string, number>();
    for (const t of feedback) if (rare(t)) boost.set(t, ranking.feedback.boost);
    for (const t of related) if (rare(t)) boost.set(t, ranking.expansion.boost);
    for (const t of terms) boost.set(t, 1);
    // Fuzzy matching only for stems the index does not hold (cognates, typos): on a large index,
    // fuzzy expansion of every term is what made queries slow (bench/retrieval.ts).
    const results = this.mini.search([...boost.keys()].join(' '), {
      boost: { heading: ranking.heading },
      bm25: ranking.bm25,
      fuzzy: (t) => (this.df.has(t) ? false : fuzzyFor(t)),
      ...(boost.size > terms.length ? { boostTerm: (t: string) => boost.get(t) ?? 1 } : {}),
    });
    return results.map((r) => ({ id: String(r.id), score: r.score, queryTerms: r.queryTerms }));
  }

  /**
   * Rerank a pool of BM25's best by BM25 (scaled to the top hit) and coverage, half each: BM25
   * alone favours passages repeating one word; coverage alone ignores how much a word is used.
   * With `ranking.fileWeight`, a passage also gains from the best other passage of its file.
   */
  private rank(results: Array<{ id: string; score: number; queryTerms: string[] }>, weights: ReturnType<typeof weighTokens>, wanted: Set<string>, pool: number): LexicalHit[] {
    const hits: LexicalHit[] = [];
    for (const r of results.slice(0, pool)) {
      // Exact matches from the passage's own terms: pruned terms still count for the score.
      const own = this.termsOf.get(r.id) ?? [];
      const exact = new Set(own.filter((t) => wanted.has(t)));
      const fuzzy = new Set(r.queryTerms.filter((t) => !exact.has(t)));
      hits.push({ id: r.id, bm25: r.score, score: coverage(weights, exact, fuzzy) });
    }
    const top = hits[0]?.bm25 || 1;
    const base = new Map(hits.map((h) => [h.id, ranking.coverage * h.score + (1 - ranking.coverage) * (h.bm25 / top)]));
    let rankOf = (h: LexicalHit): number => base.get(h.id)!;
    if (ranking.fileWeight > 0) {
      const best = new Map<string, number[]>();
      for (const h of hits) {
        const f = fileOf(h.id);
        best.set(f, [...(best.get(f) ?? []), base.get(h.id)!].sort((a, b) => b - a).slice(0, 2));
      }
      rankOf = (h) => {
        const [first = 0, second = 0] = best.get(fileOf(h.id))!;
        const mine = base.get(h.id)!;
        return mine + ranking.fileWeight * (mine === first ? second : first);
      };
    }
    const final = new Map(hits.map((h) => [h.id, rankOf(h)]));
    return hits.sort((a, b) => final.get(b.id)! - final.get(a.id)!);
  }

  /** The most distinctive terms of the first passages (count among them × idf), not yet searched. */
  private feedbackTerms(top: LexicalHit[], searched: Set<string>, n: number): string[] {
    const count = new Map<string, number>();
    for (const h of top) for (const t of this.termsOf.get(h.id) ?? []) if (!searched.has(t)) count.set(t, (count.get(t) ?? 0) + 1);
    return [...count]
      .filter(([t]) => (this.df.get(t) ?? 0) >= 2)
      .map(([t, c]) => ({ t, w: c * idf(this.df.get(t)!, this.size) }))
      .sort((a, b) => b.w - a.w)
      .slice(0, n)
      .map((x) => x.t);
  }

  /**
   * Related index terms of each question word, from the dictionaries: only words the corpus uses,
   * none too common, at most `ranking.expansion.perWord` per word, in the dictionary's order
   * (translations, then closest meanings first).
   */
  private expand(tokens: QueryToken[]): QueryToken[] {
    const lex = this.lexicon;
    if (!lex) return tokens;
    const { translations, synonyms, maxDfShare, maxWordDf } = ranking.expansion;
    const maxDf = Math.max(1, this.size * maxDfShare);
    /** Index stems of up to `n` dictionary words the corpus uses, not too commonly. */
    const pick = (words: string[], own: Set<string>, n: number): string[] => {
      const out: string[] = [];
      let kept = 0;
      // The lexicon gives folded single words only (lexicons/expansionTable.ts).
      for (const f of words) {
        if (kept >= n) break;
        const stems = [...new Set([stem(f, 'fr'), stem(f, 'en')])].filter((s) => !own.has(s) && (this.df.get(s) ?? 0) > 0 && this.df.get(s)! <= maxDf);
        if (stems.length === 0) continue;
        for (const s of stems) own.add(s);
        out.push(...stems);
        kept++;
      }
      return out;
    };
    return tokens.map((t) => {
      if (Math.max(0, ...t.variants.map((v) => this.df.get(v) ?? 0)) > maxWordDf) return t;
      const own = new Set(t.variants);
      const found = lex.related(t.word);
      const related = [...pick(found.translations, own, translations), ...pick(found.synonyms, own, synonyms)];
      return related.length > 0 ? { ...t, related } : t;
    });
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

  /**
   * The most question words one of the passages `ids` holds together, a word counting as held when
   * the passage holds one of its stems or, after the dictionaries' expansion, one of its
   * translations. A question none of whose passages holds two of its
   * words is not about anything the corpus talks about: its words are there, scattered.
   */
  heldTogether(tokens: QueryToken[], ids: readonly string[], groups: readonly number[] = tokens.map((_, i) => i)): number {
    // Translations only: a synonym from the thesauri is too loose a reading of a word to say the
    // corpus carries it (« tour » → « tower », « roue » → « cycle »), a translation is the same word.
    const forms = tokens.map((t) => {
      const translated = this.lexicon ? this.lexicon.related(t.word).translations.slice(0, heldTranslations.n).flatMap((f) => [stem(f, 'fr'), stem(f, 'en')]) : [];
      return [...t.variants, ...translated.filter((x) => (this.df.get(x) ?? 0) > 0)];
    });
    let most = 0;
    for (const id of ids) {
      const terms = new Set(this.termsOf.get(id) ?? []);
      const held = new Set(groups.filter((_, i) => forms[i]!.some((v) => terms.has(v)))).size;
      most = Math.max(most, held);
    }
    return most;
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
      fields: FIELDS,
      storeFields: [],
      tokenize: split,
      processTerm: identity,
      searchOptions: SEARCH_OPTIONS,
    });
    for (const [t, n] of json.df) idx.df.set(t, n);
    for (const p of passages) {
      const { body, heading } = idx.analyse(p);
      idx.termsOf.set(p.id, [...new Set([...body, ...heading])]);
      idx.track(p);
    }
    return idx;
  }
}
