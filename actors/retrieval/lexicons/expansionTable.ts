import { createHash } from 'node:crypto';
import { accessSync, constants, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { threadId } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { fold } from '../../../machines/textFold.js';
import { readFreedict } from './freedict.js';
import { readMythes } from './mythes.js';

/**
 * The dictionaries reduced to what query expansion uses, in one SQLite file next to them: per
 * folded headword, its translations and its synonyms as folded single words, in the dictionaries'
 * order, duplicates (after folding) dropped. Parsing the dictionaries costs ~0.5 s and ~100 MB of
 * memory that would stay resident in a server meant to idle under 120 MB; the table is built from them once,
 * when they are installed or changed, and questions look their words up in it (a few µs each,
 * SQLite's page cache ≤ 2 MB). Nothing the retriever could use is dropped: it only ever searches
 * single words, folded (lexicalIndex.ts `expand`), and a headword whose lists are all multi-word
 * is kept as known, because it still stops the search for another lemma (lexicon.ts).
 */
export interface ExpansionEntry {
  /** Undefined: not a headword of the dictionaries (or one without translation). */
  translations?: string[];
  /** Undefined: not a headword of the thesauri (or one without synonym). */
  synonyms?: string[];
}

export interface ExpansionTable {
  /** The entry of a folded headword; undefined when no dictionary has it. */
  get(headword: string): ExpansionEntry | undefined;
  /** The SQLite file. */
  readonly file: string;
}

export type FilePair = readonly [string, string];

/** Bumped when the table's content changes: an older file is rebuilt. */
const FORMAT = 1;
const FILE = 'palabre-expansions.sqlite';
/** What the retriever can search: one term of letters and digits (lexicalIndex.ts). */
const SINGLE_WORD = /^[\p{L}\p{N}]+$/u;
/** Already folded and a single word: fold() would return it unchanged. */
const PLAIN = /^[a-z0-9]+$/;

/** The dictionary files (names, sizes, times) and the format: a table built from others is rebuilt. */
function stampOf(dir: string, pairs: FilePair[]): string {
  const files = pairs.flat().map((f) => {
    const s = statSync(join(dir, f));
    return [f, s.size, Math.floor(s.mtimeMs)];
  });
  return JSON.stringify({ format: FORMAT, files });
}

/** Next to the dictionaries, or in the temporary folder when theirs is read-only (a system path). */
function tableFile(dir: string): string {
  try {
    accessSync(dir, constants.W_OK);
    return join(dir, FILE);
  } catch {
    const key = createHash('sha256').update(resolve(dir)).digest('hex').slice(0, 12);
    return join(tmpdir(), `palabre-expansions-${key}.sqlite`);
  }
}

/** Folded single words, first occurrence kept: two spellings of one folded word expand alike. */
function compact(words: string[]): string {
  const out = new Set<string>();
  for (const w of words) {
    // Most entries are plain lower-case words (kept as they are) or several words (a space
    // survives folding): both decided without folding, which is most of the build's time.
    if (PLAIN.test(w)) out.add(w);
    else if (w.includes(' ')) continue;
    else {
      const f = fold(w);
      if (SINGLE_WORD.test(f)) out.add(f);
    }
  }
  return [...out].join(' ');
}

/** Parses the dictionaries (their readers throw LexiconError on a bad file) and writes the table. */
function build(dir: string, thesauri: FilePair[], dictionaries: FilePair[], file: string, stamp: string): void {
  const thes = thesauri.map(([i, d]) => readMythes(join(dir, i), join(dir, d)));
  const dicts = dictionaries.map(([i, d]) => readFreedict(join(dir, i), join(dir, d)));
  const headwords = new Set<string>();
  for (const d of dicts) for (const k of d.keys()) headwords.add(k);
  for (const t of thes) for (const k of t.words()) headwords.add(k);
  // Written aside and renamed: another process starting meanwhile never opens half a table.
  const tmp = `${file}.${process.pid}-${threadId}.tmp`;
  rmSync(tmp, { force: true });
  const db = new Database(tmp);
  try {
    db.exec('CREATE TABLE meta (stamp TEXT NOT NULL); CREATE TABLE expansions (word TEXT PRIMARY KEY, translations TEXT, synonyms TEXT) WITHOUT ROWID');
    const insert = db.prepare('INSERT INTO expansions VALUES (?, ?, ?)');
    db.transaction(() => {
      for (const k of headwords) {
        // The same lists the readers give a lookup: every dictionary's, in order.
        const translations = dicts.flatMap((d) => d.get(k) ?? []);
        const synonyms = thes.flatMap((t) => t.synonyms(k));
        if (translations.length + synonyms.length === 0) continue;
        insert.run(k, translations.length > 0 ? compact(translations) : null, synonyms.length > 0 ? compact(synonyms) : null);
      }
      db.prepare('INSERT INTO meta VALUES (?)').run(stamp);
    })();
    db.close();
    renameSync(tmp, file);
  } catch (err) {
    if (db.open) db.close();
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** The stored table when it was built from these files, else undefined (absent, stale, unreadable). */
function openBuilt(file: string, stamp: string): Database.Database | undefined {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const row = db.prepare('SELECT stamp FROM meta').get() as { stamp: string } | undefined;
    if (row?.stamp === stamp) return db;
  } catch {
    // absent or not a table of ours: rebuilt below
  }
  db?.close();
  return undefined;
}

const words = (s: string | null): string[] | undefined => (s === null ? undefined : s === '' ? [] : s.split(' '));

/** Opens the table of these dictionaries, building it first when absent or built from other files. */
export function openExpansionTable(dir: string, thesauri: FilePair[], dictionaries: FilePair[]): ExpansionTable {
  const stamp = stampOf(dir, [...thesauri, ...dictionaries]);
  const file = tableFile(dir);
  let db = openBuilt(file, stamp);
  if (!db) {
    build(dir, thesauri, dictionaries, file, stamp);
    db = openBuilt(file, stamp);
    if (!db) throw new Error(`expansion table ${file}: unreadable right after it was written`);
  }
  const select = db.prepare('SELECT translations, synonyms FROM expansions WHERE word = ?');
  return {
    file,
    get(headword) {
      const row = select.get(headword) as { translations: string | null; synonyms: string | null } | undefined;
      if (!row) return undefined;
      const translations = words(row.translations);
      const synonyms = words(row.synonyms);
      return { ...(translations ? { translations } : {}), ...(synonyms ? { synonyms } : {}) };
    },
  };
}
