import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { listCorpusFiles } from '../../actors/retrieval/ingest.js';
import { INSTALL_HINT, loadConfiguredLexicons } from '../../actors/retrieval/lexicons/lexicon.js';
import { Retriever } from '../../actors/retrieval/retriever.js';
import type { PalabreConfig } from '../../actors/palabreConfig.js';
import type { CorpusChoice } from '../corpusChoice.js';
import type { Check } from './check.js';

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

const SOURCE: Record<CorpusChoice['source'], string> = {
  flag: 'given', CORPUS_DIR: 'CORPUS_DIR', remembered: 'indexed last by palabre index', default: 'CORPUS_DIR default',
};

/** The docs assistant's corpus: folder, files, passages in the stored index and its age. */
export function checkCorpus(config: Pick<PalabreConfig, 'DATA_DIR'>, choice: CorpusChoice, now = Date.now()): Check {
  const abs = resolve(choice.dir);
  const base = { id: 'corpus', group: 'corpus' as const, label: 'docs corpus' };
  const where = `${abs} (${SOURCE[choice.source]})`;
  if (!existsSync(abs) || !statSync(abs).isDirectory()) {
    return { ...base, status: 'fail', detail: `${where} is not a folder`, fix: 'set CORPUS_DIR to your documentation folder, or run `palabre index DIR`' };
  }
  const files = listCorpusFiles(abs);
  if (files.length === 0) {
    return { ...base, status: 'fail', detail: `${where} holds no Markdown, MDX or text file`, fix: 'set CORPUS_DIR to a folder of .md/.mdx/.txt files, or run `palabre index DIR`' };
  }
  const retriever = new Retriever({ root: abs, dataDir: config.DATA_DIR });
  const file = retriever.indexFile;
  if (!retriever.load() || !file) {
    return { ...base, status: 'ok', detail: `${where}: ${files.length} files, not indexed yet (serve indexes it at start; \`palabre index\` does it ahead)` };
  }
  const builtAt = statSync(file).mtimeMs;
  const changed = files.filter((f) => f.mtimeMs > builtAt).length;
  const detail = `${where}: ${files.length} files, ${retriever.passageCount} passages, index ${age(now - builtAt)} old`;
  if (changed > 0) return { ...base, status: 'ok', detail: `${detail}; ${changed} file(s) changed since (re-indexed at the next start)` };
  return { ...base, status: 'ok', detail };
}

/**
 * The dictionaries questions are expanded with (docs/docs-assistant.md § Analysis): optional, so a
 * missing or unreadable set is a warning with the command that installs it.
 */
export function checkLexicons(config: Pick<PalabreConfig, 'DOCS_LEXICONS' | 'PALABRE_CACHE_DIR'>): Check {
  const base = { id: 'corpus.lexicons', group: 'corpus' as const, label: 'dictionaries' };
  const { lexicon, notice, error } = loadConfiguredLexicons(config);
  if (lexicon || config.DOCS_LEXICONS === 'off') return { ...base, status: 'ok', detail: notice };
  return { ...base, status: 'warn', detail: error ?? notice, fix: `${INSTALL_HINT}${config.DOCS_LEXICONS ? ` ${config.DOCS_LEXICONS}` : ''} (Debian's FreeDict and MyThes packages), or DOCS_LEXICONS=off` };
}
