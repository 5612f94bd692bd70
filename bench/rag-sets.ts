/**
 * Parse-only check of the labelled question sets (test/docs/eval/): each file against the schema of
 * support/ragSets.ts, unique ids, and every relevant path present in its corpus. It runs no retrieval
 * and no assistant, so it may be run on a held-out set before that set's single run.
 *
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-sets.ts              # every set
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-sets.ts --set fifth  # one set
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-sets.ts --set sixth  # the sixth set (held out: parse-only check before its single run)
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-sets.ts --set seventh  # the seventh set (held out, in no tuning data: parse-only)
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-sets.ts --set eighth   # the eighth set (held out, in no tuning data: parse-only)
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-sets.ts --set ninth    # the ninth set (held out, in no tuning data: parse-only)
 *
 * The docs set is checked against docs/ (its corpus); the others against CORPUS_DIR. Exits 1 on any
 * duplicate id or missing path.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { expectsRefusal, readSet, SET_NAMES, SETS } from './support/ragSets.js';

const args = process.argv.slice(2);
const i = args.indexOf('--set');
const names = i >= 0 ? [z.enum(SET_NAMES).parse(args[i + 1])] : SET_NAMES;
const shared = resolve(process.env.CORPUS_DIR ?? '../../shared/corpus');

let failed = false;
const rows = names.map((name) => {
  const corpus = name === 'docs' ? resolve('docs') : shared;
  const items = readSet(SETS[name]);
  const ids = items.map((x) => x.id);
  const duplicates = ids.filter((id, n) => ids.indexOf(id) !== n);
  const missing = items.flatMap((x) => x.relevant.filter((p) => !existsSync(join(corpus, p)) || !statSync(join(corpus, p)).isFile()).map((p) => `${x.id}: ${p}`));
  if (duplicates.length > 0 || missing.length > 0) failed = true;
  for (const d of duplicates) console.error(`${name}: duplicate id ${d}`);
  for (const m of missing) console.error(`${name}: relevant path not in ${corpus}: ${m}`);
  const answerable = items.filter((x) => !expectsRefusal(x));
  return {
    set: name,
    file: SETS[name],
    answerable: answerable.length,
    outOfScope: items.length - answerable.length,
    fr: items.filter((x) => x.lang === 'fr').length,
    en: items.filter((x) => x.lang === 'en').length,
    splits: [...new Set(items.map((x) => x.split ?? 'tune'))].join(','),
    relevantFiles: new Set(answerable.flatMap((x) => x.relevant)).size,
    duplicateIds: duplicates.length,
    missingPaths: missing.length,
  };
});
console.log(JSON.stringify({ bench: 'rag-sets', corpus: shared, sets: rows }));
console.table(rows);
if (failed) process.exit(1);
