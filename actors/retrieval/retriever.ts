import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from '../../core/log.js';
import { analyzeQuery } from './analyze.js';
import { dot, reciprocalRankFusion, vectorFromBase64, vectorToBase64, type Embedder } from './embeddings.js';
import { hashContent, ingestSource, listCorpusFiles, type DocRecord, type PassageRecord } from './ingest.js';
import { LexicalIndex, type LexicalIndexJSON } from './lexicalIndex.js';
import { foldPhrase, phrasePattern, wordGroups } from './scope.js';
import type { Lexicon } from './lexicons/lexicon.js';

/**
 * The corpus as the assistant sees it: documents, passages, the BM25 index, optional vectors.
 * Persisted as one JSON file under DATA_DIR/index/ and brought up to date with the files at start
 * (mtime+size, then content hash) and, while serving, on fs.watch events.
 */
export interface ScoredPassage extends PassageRecord {
  /** Normalised score in [0, 1] (coverage.ts). */
  score: number;
}

export interface SyncReport {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  passages: number;
  ms: number;
  /** Passages embedded in this run (hybrid only). */
  embedded?: number;
  /** Why embedding failed, when it did (the index stays lexical until the next sync). */
  embeddingError?: string;
}

export type SyncProgress = (done: number, total: number, path: string) => void;

export interface RetrieverOptions {
  root: string;
  /** Where the index file lives; unset = in memory only. */
  dataDir?: string;
  logger?: Logger;
  embedder?: Embedder;
  /** Dictionaries for query expansion (lexicons/lexicon.ts); none = the question's own words. */
  lexicon?: Lexicon;
}

/** Bumped when the stored shape or the analysis changes: an old file is rebuilt, not misread. */
const FORMAT = 9; // 8: inline code keeps the tags it names (« balise `<img>` »); 9: dotted numbers are one term (« 4.1.2 »)
/** Candidates each ranker contributes before fusion or cut to k. */
const CANDIDATES = 50;

interface Stored {
  format: number;
  root: string;
  embeddingModel?: string;
  docs: DocRecord[];
  lexical: LexicalIndexJSON;
  vectors?: Array<[string, string]>;
}

export class Retriever {
  readonly root: string;
  private readonly file: string | undefined;
  private readonly logger: Logger | undefined;
  private readonly embedder: Embedder | undefined;
  private readonly lexicon: Lexicon | undefined;
  private docs = new Map<string, DocRecord>();
  private passages = new Map<string, PassageRecord>();
  /** Folded passage texts for `mentions`, computed on first use, dropped with their passage. */
  private readonly foldedText = new WeakMap<PassageRecord, string>();
  private lexical = new LexicalIndex();
  private vectors = new Map<string, Float32Array>();
  private watcher: FSWatcher | undefined;
  private syncing: Promise<SyncReport> | undefined;

  constructor(opts: RetrieverOptions) {
    this.root = resolve(opts.root);
    this.logger = opts.logger;
    this.embedder = opts.embedder;
    this.lexicon = opts.lexicon;
    this.lexical.expandWith(this.lexicon);
    if (opts.dataDir) {
      const key = createHash('sha256').update(this.root).digest('hex').slice(0, 12);
      this.file = join(resolve(opts.dataDir), 'index', `docs-${key}.json`);
    }
  }

  get indexFile(): string | undefined {
    return this.file;
  }

  get passageCount(): number {
    return this.passages.size;
  }

  get expanding(): boolean {
    return this.lexicon !== undefined;
  }

  get hybrid(): boolean {
    return this.embedder !== undefined;
  }

  /** Loads the stored index if it matches this corpus and format; false when absent or stale. */
  load(): boolean {
    if (!this.file || !existsSync(this.file)) return false;
    try {
      const stored = JSON.parse(readFileSync(this.file, 'utf8')) as Stored;
      if (stored.format !== FORMAT || stored.root !== this.root) return false;
      const passages = stored.docs.flatMap((d) => d.passages);
      this.lexical = LexicalIndex.fromJSON(stored.lexical, passages);
      this.lexical.expandWith(this.lexicon);
      this.docs = new Map(stored.docs.map((d) => [d.path, d]));
      this.passages = new Map(passages.map((p) => [p.id, p]));
      if (this.embedder && stored.embeddingModel === this.embedder.model && stored.vectors) {
        this.vectors = new Map(stored.vectors.map(([id, b64]) => [id, vectorFromBase64(b64)]));
      }
      return true;
    } catch (err) {
      this.logger?.warn({ err, file: this.file }, 'docs index unreadable, rebuilding');
      return false;
    }
  }

  save(): void {
    if (!this.file) return;
    const stored: Stored = {
      format: FORMAT,
      root: this.root,
      docs: [...this.docs.values()],
      lexical: this.lexical.toJSON(),
      ...(this.embedder ? { embeddingModel: this.embedder.model, vectors: [...this.vectors].map(([id, v]) => [id, vectorToBase64(v)] as [string, string]) } : {}),
    };
    mkdirSync(dirname(this.file), { recursive: true });
    // Write then rename: a crash mid-write leaves the previous index, never half a file.
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(stored));
    renameSync(tmp, this.file);
  }

  /** Brings the index up to date with the files; concurrent calls share one run. */
  sync(onProgress?: SyncProgress): Promise<SyncReport> {
    if (!this.syncing) {
      this.syncing = this.doSync(onProgress).finally(() => {
        this.syncing = undefined;
      });
    }
    return this.syncing;
  }

  private async doSync(onProgress?: SyncProgress): Promise<SyncReport> {
    const t0 = performance.now();
    const files = listCorpusFiles(this.root);
    const seen = new Set<string>();
    const report: SyncReport = { added: 0, updated: 0, removed: 0, unchanged: 0, passages: 0, ms: 0 };
    const fresh: PassageRecord[] = [];
    let done = 0;
    for (const f of files) {
      seen.add(f.path);
      const old = this.docs.get(f.path);
      if (old && old.mtimeMs === f.mtimeMs && old.size === f.size) {
        report.unchanged++;
      } else {
        const source = readFileSync(f.abs, 'utf8');
        if (old && old.hash === hashContent(source)) {
          this.docs.set(f.path, { ...old, mtimeMs: f.mtimeMs, size: f.size });
          report.unchanged++;
        } else {
          if (old) this.dropDoc(old);
          const doc = ingestSource(f.path, source, f);
          if (!doc) {
            // Not documentation (JSON that is not prose records): as if the file were absent.
            seen.delete(f.path);
            onProgress?.(++done, files.length, f.path);
            continue;
          }
          this.docs.set(doc.path, doc);
          for (const p of doc.passages) this.passages.set(p.id, p);
          this.lexical.add(doc.passages);
          fresh.push(...doc.passages);
          if (old) report.updated++;
          else report.added++;
        }
      }
      onProgress?.(++done, files.length, f.path);
    }
    for (const doc of [...this.docs.values()]) {
      if (!seen.has(doc.path)) {
        this.dropDoc(doc);
        this.docs.delete(doc.path);
        report.removed++;
      }
    }
    if (this.embedder) {
      const missing = [...this.passages.values()].filter((p) => !this.vectors.has(p.id));
      if (missing.length > 0) {
        // An embeddings outage must not keep the assistant down: lexical search still works, and
        // the missing vectors are asked for again at the next sync.
        try {
          const vecs = await this.embedder.embed(missing.map((p) => `${p.section}\n${p.text}`));
          missing.forEach((p, i) => this.vectors.set(p.id, vecs[i]!));
          report.embedded = missing.length;
        } catch (err) {
          this.logger?.warn({ err, missing: missing.length }, 'embeddings unavailable: lexical retrieval only until the next sync');
          report.embeddingError = err instanceof Error ? err.message : String(err);
        }
      }
    }
    report.passages = this.passages.size;
    report.ms = performance.now() - t0;
    if (report.added + report.updated + report.removed > 0 || fresh.length > 0 || (report.embedded ?? 0) > 0) this.save();
    return report;
  }

  private dropDoc(doc: DocRecord): void {
    const ids = doc.passages.map((p) => p.id);
    this.lexical.remove(ids);
    for (const id of ids) {
      this.passages.delete(id);
      this.vectors.delete(id);
    }
  }

  /** Lexical (BM25) top k with normalised scores; synchronous, used by /api/search and the bench. */
  search(query: string, k: number): ScoredPassage[] {
    return this.searchJudged(query, k).passages;
  }

  /**
   * `search`'s passages and those the guard's confidence reads: the same ranking, capped at
   * `ranking.judgedPerFile` passages per file instead of `ranking.perFile` (lexicalIndex.ts).
   */
  searchJudged(query: string, k: number): { passages: ScoredPassage[]; judged: ScoredPassage[] } {
    const { hits, judged } = this.lexical.search(query, Math.max(k, 1));
    const scored = (list: typeof hits): ScoredPassage[] => list.slice(0, k).map((h) => ({ ...this.passages.get(h.id)!, score: h.score }));
    return { passages: scored(hits), judged: scored(judged ?? hits) };
  }

  /**
   * `retrieve`'s passages with the ones the confidence reads: lexical, the two caps of
   * `searchJudged`; hybrid (embeddings), the fused list for both, as before the ninth round.
   */
  async retrieveJudged(query: string, k: number, signal?: AbortSignal): Promise<{ passages: ScoredPassage[]; judged: ScoredPassage[] }> {
    if (!this.embedder || this.vectors.size === 0) return this.searchJudged(query, k);
    const passages = await this.retrieve(query, k, signal);
    return { passages, judged: passages };
  }

  /**
   * Hybrid when an embedder is configured: BM25 and cosine rankings fused by reciprocal rank.
   * The score stays the lexical coverage of each fused passage, so the guard means the same thing
   * with or without embeddings.
   */
  async retrieve(query: string, k: number, signal?: AbortSignal): Promise<ScoredPassage[]> {
    if (!this.embedder || this.vectors.size === 0) return this.search(query, k);
    const { hits, tokens } = this.lexical.search(query, CANDIDATES);
    let qv: Float32Array | undefined;
    try {
      [qv] = await this.embedder.embed([query], signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      this.logger?.warn({ err }, 'query embedding failed: lexical results only');
    }
    if (!qv) return this.search(query, k);
    const dense = [...this.vectors]
      .map(([id, v]) => ({ id, cos: dot(qv, v) }))
      .sort((a, b) => b.cos - a.cos)
      .slice(0, CANDIDATES)
      .map((d) => d.id);
    const lexScore = new Map(hits.map((h) => [h.id, h.score]));
    const q = tokens.length > 0 ? tokens : analyzeQuery(query);
    return reciprocalRankFusion([hits.map((h) => h.id), dense])
      .slice(0, k)
      .filter((f) => this.passages.has(f.id))
      .map((f) => ({ ...this.passages.get(f.id)!, score: lexScore.get(f.id) ?? this.lexical.scorePassage(q, f.id) }));
  }

  /** BM25's first `pool` candidates with their reranking features (see LexicalIndex.candidates). */
  candidates(query: string, pool: number): ReturnType<LexicalIndex['candidates']> {
    return this.lexical.candidates(query, pool);
  }

  /** Per-word detail of a query against one passage (see LexicalIndex.explain). */
  explain(query: string, id: string): ReturnType<LexicalIndex['explain']> {
    return this.lexical.explain(analyzeQuery(query), id);
  }

  /** See LexicalIndex.heldTogether. */
  heldTogether(query: string, ids: readonly string[]): number {
    const tokens = analyzeQuery(query);
    return this.lexical.heldTogether(tokens, ids, wordGroups(query, tokens));
  }

  /**
   * Whether some passage's text holds `phrase` (folded, spaces collapsed): how a named thing of a
   * question (« RGAA 5 », `claude_desktop_config.json`) is looked for as the docs would write it.
   */
  mentions(phrase: string): boolean {
    const wanted = foldPhrase(phrase);
    if (!wanted) return true;
    const whole = phrasePattern(wanted);
    for (const p of this.passages.values()) {
      let folded = this.foldedText.get(p);
      if (folded === undefined) {
        folded = foldPhrase(p.text);
        this.foldedText.set(p, folded);
      }
      if (folded.includes(wanted) && whole.test(folded)) return true;
    }
    return false;
  }

  documents(): DocRecord[] {
    return [...this.docs.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  document(path: string): DocRecord | undefined {
    return this.docs.get(path);
  }

  passage(id: string): PassageRecord | undefined {
    return this.passages.get(id);
  }

  /**
   * Re-syncs when files change while serving. Events are coalesced (an editor's save is several
   * events); `debounceMs` is passed in so tests can drive it with fake timers.
   */
  watch(opts: { debounceMs?: number; onSync?: (r: SyncReport) => void } = {}): () => void {
    if (this.watcher) return () => this.unwatch();
    let timer: NodeJS.Timeout | undefined;
    try {
      this.watcher = watch(this.root, { recursive: true }, () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          this.sync()
            .then((r) => {
              if (r.added + r.updated + r.removed > 0) this.logger?.info({ ...r }, 'docs index updated');
              opts.onSync?.(r);
            })
            .catch((err: unknown) => this.logger?.error({ err }, 'docs index update failed'));
        }, opts.debounceMs ?? 300);
      });
      this.watcher.on('error', (err) => this.logger?.warn({ err }, 'docs watcher error'));
    } catch (err) {
      this.logger?.warn({ err }, 'cannot watch the corpus; changes are picked up at next start');
    }
    return () => {
      clearTimeout(timer);
      this.unwatch();
    };
  }

  private unwatch(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
}
