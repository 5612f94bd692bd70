import { existsSync, mkdirSync, mkdtempSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createDocsAssistant } from '../../actors/docs/assistant.js';
import { createOfflineProvider } from '../../actors/llm/offline.js';
import { loadLexicon } from '../../actors/retrieval/lexicons/lexicon.js';
import { Retriever } from '../../actors/retrieval/retriever.js';
import { registryOf, testConfig } from './fixtures.js';

/**
 * Query expansion from real dictionary formats (MyThes thesauri, FreeDict dictd files), written
 * here in miniature: the same readers load Debian's files (actors/retrieval/lexicons/install.sh).
 */
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const b64 = (n: number): string => (n < 64 ? B64[n]! : b64(Math.floor(n / 64)) + B64[n % 64]!);

/** A dictd pair: `.index` lines `headword<TAB>offset<TAB>length` into a gzipped `.dict.dz`. */
function writeFreedict(dir: string, name: string, entries: Array<[string, string]>): void {
  let body = '';
  const index: string[] = [];
  for (const [head, text] of entries) {
    const entry = `${head} /pron/\n${text}\n`;
    index.push(`${head}\t${b64(Buffer.byteLength(body))}\t${b64(Buffer.byteLength(entry))}`);
    body += entry;
  }
  writeFileSync(join(dir, `${name}.index`), index.join('\n') + '\n');
  writeFileSync(join(dir, `${name}.dict.dz`), gzipSync(Buffer.from(body)));
}

/** A MyThes pair: `.idx` (encoding, count, `word|offset`) into `.dat` (`word|n` + n meanings). */
function writeMythes(dir: string, name: string, entries: Array<[string, string[]]>): void {
  let dat = 'UTF-8\n';
  const idx: string[] = [];
  for (const [word, meanings] of entries) {
    idx.push(`${word}|${Buffer.byteLength(dat)}`);
    dat += `${word}|${meanings.length}\n${meanings.join('\n')}\n`;
  }
  writeFileSync(join(dir, `${name}.idx`), `UTF-8\n${entries.length}\n${idx.join('\n')}\n`);
  writeFileSync(join(dir, `${name}.dat`), dat);
}

function dictionaries(): string {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-lex-'));
  writeFreedict(dir, 'freedict-fra-eng', [['bateau', '1. boat, ship\n2. craft']]);
  writeFreedict(dir, 'freedict-eng-fra', [['car', 'voiture']]);
  writeMythes(dir, 'thes_fr', [['voiture', ['(Nom)|automobile|auto']]]);
  writeMythes(dir, 'th_en_US_v2', [['big', ['(adj)|large|small (antonym)|huge (similar term)']]]);
  return dir;
}

function corpus(): string {
  const root = mkdtempSync(join(tmpdir(), 'palabre-lex-corpus-'));
  mkdirSync(join(root, 'en'));
  mkdirSync(join(root, 'fr'));
  writeFileSync(join(root, 'en', 'harbour.md'), '# Harbour\n\n## Departures\n\nThe ship leaves the harbour at noon every day.\n');
  writeFileSync(join(root, 'fr', 'garage.md'), '# Garage\n\n## Entretien\n\nUne automobile se révise chaque année au garage.\n');
  writeFileSync(join(root, 'fr', 'cuisine.md'), '# Cuisine\n\n## Recette\n\nLa soupe se prépare avec des légumes de saison.\n');
  return root;
}

describe('dictionaries for query expansion', () => {
  it('reads translations (FreeDict) and synonyms (MyThes), plural and accents folded, antonyms dropped', () => {
    const { lexicon, notice, error } = loadLexicon(dictionaries());
    expect(error).toBeUndefined();
    expect(notice).toMatch(/^query expansion from 4 dictionaries in /);
    expect(lexicon!.related('bateaux')).toEqual({ translations: ['boat', 'ship', 'craft'], synonyms: [] });
    expect(lexicon!.related('Voiture').synonyms).toEqual(['automobile', 'auto']);
    expect(lexicon!.related('big').synonyms).toEqual(['large', 'huge']);
    expect(lexicon!.related('inconnu')).toEqual({ translations: [], synonyms: [] });
  });

  it('no dictionary: no lexicon, and a notice saying so and how to install them', () => {
    const { lexicon, notice, error } = loadLexicon(mkdtempSync(join(tmpdir(), 'palabre-lex-empty-')));
    expect(lexicon).toBeUndefined();
    expect(error).toBeUndefined();
    expect(notice).toMatch(/^ranking without query expansion: no dictionary in .* \(bash actors\/retrieval\/lexicons\/install\.sh\)$/);
  });

  it('a malformed thesaurus index: an error naming the file and line, expansion off, no throw', () => {
    const dir = dictionaries();
    writeFileSync(join(dir, 'thes_fr.idx'), 'UTF-8\n1\nvoiture sans offset\n');
    const { lexicon, notice, error } = loadLexicon(dir);
    expect(lexicon).toBeUndefined();
    expect(error).toBe(`dictionary file ${join(dir, 'thes_fr.idx')}, line 3: expected "word|offset" within ${join(dir, 'thes_fr.dat')}, found "voiture sans offset"`);
    expect(notice).toContain('ranking without query expansion: dictionary file');
  });

  it('a dictionary that is not gzip, or an index past its end: clear errors', () => {
    const dir = dictionaries();
    writeFileSync(join(dir, 'freedict-fra-eng.dict.dz'), 'plain text');
    expect(loadLexicon(dir).error).toMatch(/freedict-fra-eng\.dict\.dz: not a dictzip\/gzip file/);
    const dir2 = dictionaries();
    writeFileSync(join(dir2, 'freedict-eng-fra.index'), 'car\tA\tzzz\n');
    expect(loadLexicon(dir2).error).toMatch(/freedict-eng-fra\.index, line 1: expected "headword<TAB>offset<TAB>length"/);
  });
});

describe('the expansion table (the dictionaries reduced to what expansion uses, in SQLite)', () => {
  const table = (dir: string): string => join(dir, 'palabre-expansions.sqlite');

  it('is built next to the dictionaries at the first load, then reused as it is', () => {
    const dir = dictionaries();
    expect(existsSync(table(dir))).toBe(false);
    expect(loadLexicon(dir).error).toBeUndefined();
    const built = statSync(table(dir)).mtimeMs;
    utimesSync(table(dir), new Date(0), new Date(0));
    const { lexicon } = loadLexicon(dir);
    expect(statSync(table(dir)).mtimeMs).toBe(0);
    expect(built).toBeGreaterThan(0);
    expect(lexicon!.related('bateaux').translations).toEqual(['boat', 'ship', 'craft']);
  });

  it('keeps folded single words only, in order, and a headword whose words are all multi-word still stops the lemma search', () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-lex-'));
    writeFreedict(dir, 'freedict-fra-eng', [['échelle', '1. Ladder, scale\n2. pecking order\n3. Échelon, ladder']]);
    writeMythes(dir, 'thes_fr', [['réglages', ['(Nom)|mise au point']], ['réglage', ['(Nom)|paramétrage|Réglage']]]);
    const { lexicon } = loadLexicon(dir);
    expect(lexicon!.related('Échelle').translations).toEqual(['ladder', 'scale', 'echelon']);
    // « réglages » is a headword (its synonym has three words): « réglage » is not looked up.
    expect(lexicon!.related('réglages').synonyms).toEqual([]);
    expect(lexicon!.related('réglage').synonyms).toEqual(['parametrage']);
  });

  it('is rebuilt when a dictionary changes, and a dictionary broken since is an error, not the old table', () => {
    const dir = dictionaries();
    expect(loadLexicon(dir).lexicon!.related('voiture').synonyms).toEqual(['automobile', 'auto']);
    writeMythes(dir, 'thes_fr', [['voiture', ['(Nom)|véhicule|automobile']]]);
    // Same size would do as well as a new one: the stamp holds sizes and modification times.
    utimesSync(join(dir, 'thes_fr.dat'), new Date(), new Date(Date.now() + 5_000));
    expect(loadLexicon(dir).lexicon!.related('voiture').synonyms).toEqual(['vehicule', 'automobile']);
    writeFileSync(join(dir, 'thes_fr.idx'), 'UTF-8\n1\nvoiture sans offset\n');
    const { lexicon, error } = loadLexicon(dir);
    expect(lexicon).toBeUndefined();
    expect(error).toMatch(/thes_fr\.idx, line 3: expected "word\|offset"/);
  });

  it('a table file that is not SQLite (or not ours) is rebuilt', () => {
    const dir = dictionaries();
    writeFileSync(table(dir), 'not a database');
    expect(loadLexicon(dir).lexicon!.related('car').translations).toEqual(['voiture']);
  });
});

describe('retrieval with and without expansion', () => {
  it('a word of the other language finds its translation; expansion ranks but never raises the score', async () => {
    const root = corpus();
    const plain = new Retriever({ root });
    await plain.sync();
    const { lexicon } = loadLexicon(dictionaries());
    const expanded = new Retriever({ root, lexicon: lexicon! });
    await expanded.sync();
    expect(expanded.expanding).toBe(true);
    expect(plain.search('bateau', 3).map((h) => h.path)).not.toContain('en/harbour.md');
    const [hit] = expanded.search('bateau', 3);
    expect(hit!.path).toBe('en/harbour.md');
    // The guard's score counts the question's own words only: "bateau" is not on the page.
    expect(hit!.score).toBe(0);
    expect(expanded.search('voiture révise', 1)[0]!.path).toBe('fr/garage.md');
    expect(plain.search('voiture révise', 1)[0]!.score).toBe(expanded.search('voiture révise', 1)[0]!.score);
  });

  it('the assistant says how it ranks: with DOCS_LEXICONS=off, a missing folder, or dictionaries', async () => {
    const offline = createOfflineProvider();
    const make = (lexicons: string): string =>
      createDocsAssistant({ config: testConfig({ CORPUS_DIR: corpus(), CHAT_PROVIDER: 'offline', DOCS_LEXICONS: lexicons }), providers: registryOf(offline), persist: false }).expansion;
    expect(make('off')).toBe('ranking without query expansion: DOCS_LEXICONS=off');
    expect(make(join(tmpdir(), 'palabre-no-such-dir'))).toMatch(/^ranking without query expansion: no dictionary in /);
    expect(make(dictionaries())).toMatch(/^query expansion from 4 dictionaries/);
  });
});
