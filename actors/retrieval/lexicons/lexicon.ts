import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultCacheDir } from '../../../core/cacheDir.js';
import { fold } from '../../../machines/textFold.js';
import { openExpansionTable, type ExpansionEntry, type ExpansionTable } from './expansionTable.js';

/**
 * Query expansion from kept, general dictionaries rather than a word list tuned on eval misses:
 * FreeDict's French ↔ English dictionaries (translations) and LibreOffice's French and English
 * thesauri (synonyms), from Debian packages (`bash actors/retrieval/lexicons/install.sh`). The
 * retriever searches the related words at a lower weight than the question's own (lexicalIndex.ts);
 * the app runs without them and says so.
 */
interface Related {
  /** The other language's words (FreeDict), folded single words, in the dictionary's order. */
  translations: string[];
  /** Same-language synonyms (MyThes), folded single words, closest meanings first. */
  synonyms: string[];
}

export interface Lexicon {
  /** Words related to a question word: folded, single words (all the retriever can search). */
  related(word: string): Related;
  /** The files in use, for the start-up log. */
  readonly sources: string[];
}

export interface LexiconLoad {
  lexicon?: Lexicon;
  /** Always set: what the retriever ranks with, in one sentence for the log / doctor. */
  notice: string;
  /** Set when a dictionary file exists but cannot be read; expansion is then off. */
  error?: string;
}

export const INSTALL_HINT = 'bash actors/retrieval/lexicons/install.sh';

const THESAURI = [
  ['thes_fr.idx', 'thes_fr.dat'],
  ['th_en_US_v2.idx', 'th_en_US_v2.dat'],
] as const;
const DICTIONARIES = [
  ['freedict-fra-eng.index', 'freedict-fra-eng.dict.dz'],
  ['freedict-eng-fra.index', 'freedict-eng-fra.dict.dz'],
] as const;

/**
 * Headwords are lemmas and question words are inflected (« conservées », « testers »): when a word
 * is not a headword, its plain plural/feminine/participle endings are tried. General morphology of
 * both languages, not a list of words.
 */
function lemmaCandidates(word: string): string[] {
  const out = [word];
  for (const [end, repl] of [['ees', 'er'], ['es', ''], ['s', ''], ['ee', 'er'], ['e', 'er'], ['e', ''], ['x', ''], ['ies', 'y'], ['ing', ''], ['ed', ''], ['ers', 'er']] as const) {
    if (word.length > end.length + 2 && word.endsWith(end)) out.push(word.slice(0, -end.length) + repl);
  }
  return out;
}

export function loadLexicon(dir: string): LexiconLoad {
  const present = (pair: readonly [string, string]): boolean => pair.every((f) => existsSync(join(dir, f)));
  const thesauri = THESAURI.filter(present);
  const dictionaries = DICTIONARIES.filter(present);
  if (thesauri.length + dictionaries.length === 0) {
    return { notice: `ranking without query expansion: no dictionary in ${dir} (${INSTALL_HINT})` };
  }
  let table: ExpansionTable;
  try {
    table = openExpansionTable(dir, thesauri, dictionaries);
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    return { notice: `ranking without query expansion: ${error} (reinstall with ${INSTALL_HINT})`, error };
  }
  const sources = [...thesauri, ...dictionaries].map(([i]) => join(dir, i));
  const cache = new Map<string, Related>();
  const lexicon: Lexicon = {
    sources,
    related(word) {
      const w = fold(word);
      let hit = cache.get(w);
      if (hit) return hit;
      const entries = lemmaCandidates(w).map((lemma) => table.get(lemma));
      // Per kind, the first lemma candidate a dictionary knows: the word itself when it is a headword.
      const firstKnown = (kind: keyof ExpansionEntry): string[] => {
        for (const e of entries) {
          const found = e?.[kind];
          if (found) return found.filter((x) => x !== w);
        }
        return [];
      };
      hit = { translations: firstKnown('translations'), synonyms: firstKnown('synonyms') };
      if (cache.size > 10_000) cache.clear();
      cache.set(w, hit);
      return hit;
    },
  };
  return { lexicon, notice: `query expansion from ${sources.length} dictionaries in ${dir}` };
}

/** The dictionaries DOCS_LEXICONS names (empty: `$PALABRE_CACHE_DIR/lexicons`), or why there are none. */
export function loadConfiguredLexicons(config: { DOCS_LEXICONS: string; PALABRE_CACHE_DIR?: string | undefined }): LexiconLoad {
  if (config.DOCS_LEXICONS === 'off') return { notice: 'ranking without query expansion: DOCS_LEXICONS=off' };
  return loadLexicon(config.DOCS_LEXICONS || join(config.PALABRE_CACHE_DIR ?? defaultCacheDir(), 'lexicons'));
}
