/**
 * Retrieval benchmarks: MiniSearch (the kept library) against SQLite FTS5 (better-sqlite3), on the
 * shared corpus and on a synthetic 100k-passage corpus. Both get the same analysed terms (FR/EN
 * stems, folded), so the comparison is the engines, not the analysis.
 *   node --expose-gc --import tsx bench/retrieval.ts [--synthetic 100000]
 * Prints one JSON line, then a table.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { analyzeQuery, analyzeText } from '../actors/retrieval/analyze.js';
import { LexicalIndex, PRUNE_FROM, pruning } from '../actors/retrieval/lexicalIndex.js';
import { Retriever } from '../actors/retrieval/retriever.js';
import { loadConfiguredLexicons, type Lexicon } from '../actors/retrieval/lexicons/lexicon.js';
import type { PassageRecord } from '../machines/chatContract.js';

const args = process.argv.slice(2);
const syntheticSize = Number(args[args.indexOf('--synthetic') + 1] ?? 0) || 100_000;
const corpus = resolve(process.env.CORPUS_DIR ?? '../shared/corpus');
// The dev set lives next to the shared corpus (../shared/eval beside ../shared/corpus).
const evalSet = JSON.parse(readFileSync(resolve(corpus, '../eval/rag-qa-dev.json'), 'utf8')) as Array<{ question: string; relevant: string[] }>;
const gc = (globalThis as { gc?: () => void }).gc;

function heapMb(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 1e6;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function time(queries: string[], rounds: number, fn: (q: string) => unknown): { p50: number; p99: number } {
  for (const q of queries) fn(q); // warm-up
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const t0 = performance.now();
      fn(q);
      samples.push(performance.now() - t0);
    }
  }
  samples.sort((a, b) => a - b);
  return { p50: +percentile(samples, 50).toFixed(3), p99: +percentile(samples, 99).toFixed(3) };
}

interface EngineRow {
  corpus: string;
  engine: string;
  passages: number;
  buildMs: number;
  passagesPerS: number;
  heapMb: number;
  p50Ms: number;
  p99Ms: number;
  recallAt5?: number;
}

function minisearch(label: string, passages: PassageRecord[], queries: string[], rounds: number, relevant?: (q: string) => string[], lexicon?: Lexicon): EngineRow {
  const before = heapMb();
  const t0 = performance.now();
  const idx = new LexicalIndex();
  idx.expandWith(lexicon);
  idx.add(passages);
  const buildMs = performance.now() - t0;
  const heap = heapMb() - before;
  const byId = new Map(passages.map((p) => [p.id, p]));
  const lat = time(queries, rounds, (q) => idx.search(q, 5));
  let recallAt5: number | undefined;
  if (relevant) {
    const inScope = queries.filter((q) => relevant(q).length > 0);
    recallAt5 = inScope.filter((q) => idx.search(q, 5).hits.some((h) => relevant(q).includes(byId.get(h.id)!.path))).length / inScope.length;
  }
  return { corpus: label, engine: `minisearch 7.2 (BM25+)${lexicon ? ' + dictionaries' : ''}`, passages: passages.length, buildMs: Math.round(buildMs), passagesPerS: Math.round(passages.length / (buildMs / 1000)), heapMb: +heap.toFixed(1), p50Ms: lat.p50, p99Ms: lat.p99, ...(recallAt5 !== undefined ? { recallAt5: +recallAt5.toFixed(3) } : {}) };
}

function fts5(label: string, passages: PassageRecord[], queries: string[], rounds: number, relevant?: (q: string) => string[]): EngineRow {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE p USING fts5(id UNINDEXED, body, heading, tokenize = 'unicode61 remove_diacritics 2')`);
  const t0 = performance.now();
  const insert = db.prepare('INSERT INTO p (id, body, heading) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (const p of passages) insert.run(p.id, analyzeText(p.text, p.lang).join(' '), analyzeText(p.section, p.lang).join(' '));
  })();
  const buildMs = performance.now() - t0;
  const pages = db.pragma('page_count', { simple: true }) as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const stmt = db.prepare(`SELECT id FROM p WHERE p MATCH ? ORDER BY bm25(p, 0, 1.0, 1.5) LIMIT 5`);
  // Same query-term pruning as LexicalIndex on large indexes, so both engines do the same work.
  db.exec(`CREATE VIRTUAL TABLE v USING fts5vocab(p, 'row')`);
  const dfOf = db.prepare('SELECT doc FROM v WHERE term = ?').pluck();
  const n = passages.length;
  const search = (q: string): string[] => {
    let all = [...new Set(analyzeQuery(q).flatMap((t) => t.variants))];
    if (n >= PRUNE_FROM) {
      const byDf = all.map((t) => ({ t, df: (dfOf.get(t) as number | undefined) ?? 0 })).sort((a, b) => a.df - b.df);
      const kept = byDf.filter((x) => x.df <= n * pruning.maxDfShare).slice(0, pruning.maxTerms);
      all = (kept.length > 0 ? kept : byDf.slice(0, 2)).map((x) => x.t);
    }
    const terms = all.map((t) => `"${t.replace(/"/g, '')}"`);
    if (terms.length === 0) return [];
    return (stmt.all(terms.join(' OR ')) as Array<{ id: string }>).map((r) => r.id);
  };
  const byId = new Map(passages.map((p) => [p.id, p]));
  const lat = time(queries, rounds, search);
  let recallAt5: number | undefined;
  if (relevant) {
    const inScope = queries.filter((q) => relevant(q).length > 0);
    recallAt5 = inScope.filter((q) => search(q).some((id) => relevant(q).includes(byId.get(id)!.path))).length / inScope.length;
  }
  db.close();
  return { corpus: label, engine: 'sqlite fts5 (bm25)', passages: passages.length, buildMs: Math.round(buildMs), passagesPerS: Math.round(passages.length / (buildMs / 1000)), heapMb: +((pages * pageSize) / 1e6).toFixed(1), p50Ms: lat.p50, p99Ms: lat.p99, ...(recallAt5 !== undefined ? { recallAt5: +recallAt5.toFixed(3) } : {}) };
}

/** Synthetic passages drawn from the real corpus's words (same vocabulary and frequencies). */
function synthetic(source: PassageRecord[], n: number): PassageRecord[] {
  const words = source.flatMap((p) => p.text.split(/\s+/)).filter((w) => w.length > 0);
  let seed = 42;
  const rand = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const out: PassageRecord[] = [];
  for (let i = 0; i < n; i++) {
    const len = 40 + Math.floor(rand() * 120);
    const start = Math.floor(rand() * (words.length - len));
    // A real run of text, shuffled a little, so term co-occurrence stays realistic.
    const text = words.slice(start, start + len).join(' ');
    const src = source[i % source.length]!;
    out.push({ ...src, id: `syn:${i}`, path: `synthetic/${i % 5000}.md`, text });
  }
  return out;
}

const retriever = new Retriever({ root: corpus });
const t0 = performance.now();
await retriever.sync();
const ingestMs = performance.now() - t0;
const passages = retriever.documents().flatMap((d) => d.passages);
const questions = evalSet.map((e) => e.question);
const relevant = (q: string): string[] => evalSet.find((e) => e.question === q)?.relevant ?? [];

// Query expansion (docs/docs-assistant.md § Analysis) from the dictionaries DOCS_LEXICONS names, as the app loads them.
// Its cost: load time and resident memory (RSS after GC, before → after), then each distinct
// question word looked up once, uncached (what a new question costs; the timed rounds below hit
// the lexicon's cache after the warm-up).
const rssMb = (): number => (heapMb(), process.memoryUsage().rss / 1e6);
const lexiconEnv = { DOCS_LEXICONS: process.env.DOCS_LEXICONS ?? '', PALABRE_CACHE_DIR: process.env.PALABRE_CACHE_DIR };
const rssBeforeLexicons = rssMb();
const tLex = performance.now();
const lexicons = loadConfiguredLexicons(lexiconEnv);
const lexiconLoadMs = performance.now() - tLex;
const lexiconRssMb = rssMb() - rssBeforeLexicons;
console.error(lexicons.notice);
let coldLookupUs: number | undefined;
const questionWords = [...new Set(questions.flatMap((q) => analyzeQuery(q).map((t) => t.word)))];
if (lexicons.lexicon) {
  const fresh = loadConfiguredLexicons(lexiconEnv).lexicon!;
  const tCold = performance.now();
  for (const w of questionWords) fresh.related(w);
  coldLookupUs = ((performance.now() - tCold) * 1000) / questionWords.length;
}
const lexiconCost = { loadMs: Math.round(lexiconLoadMs), rssMb: +lexiconRssMb.toFixed(1), coldLookupUsPerWord: coldLookupUs === undefined ? null : +coldLookupUs.toFixed(1), words: questionWords.length };
const rows: EngineRow[] = [
  minisearch('shared corpus', passages, questions, 200, relevant),
  ...(lexicons.lexicon ? [minisearch('shared corpus', passages, questions, 200, relevant, lexicons.lexicon)] : []),
  fts5('shared corpus', passages, questions, 200, relevant),
];
const syn = synthetic(passages, syntheticSize);
rows.push(minisearch(`synthetic ${syntheticSize}`, syn, questions, 10));
if (lexicons.lexicon) rows.push(minisearch(`synthetic ${syntheticSize}`, syn, questions, 10, undefined, lexicons.lexicon));
rows.push(fts5(`synthetic ${syntheticSize}`, syn, questions, 10));

const serialisedMb = +(JSON.stringify((() => {
  const idx = new LexicalIndex();
  idx.add(passages);
  return idx.toJSON();
})()).length / 1e6).toFixed(2);

console.log(JSON.stringify({ loadavg1m: +loadavg()[0]!.toFixed(1), bench: 'retrieval', corpus, ingestMs: Math.round(ingestMs), files: retriever.documents().length, passages: passages.length, serialisedIndexMb: serialisedMb, gc: gc !== undefined, lexicons: lexiconCost, rows }));
console.table(rows);
console.log(`dictionaries (${lexicons.notice}): loaded in ${lexiconCost.loadMs} ms, +${lexiconCost.rssMb} MB RSS; ${lexiconCost.words} distinct question words looked up uncached: ${lexiconCost.coldLookupUsPerWord ?? '–'} µs each`);
console.log(`ingest (read + parse + analyse + index) of ${passages.length} passages: ${Math.round(ingestMs)} ms; MiniSearch index serialised: ${serialisedMb} MB; heap figures ${gc ? 'after forced GC' : 'WITHOUT --expose-gc (rough)'}; FTS5 "heapMb" is its in-memory database size.`);
