import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { basename, extname, join, relative, sep } from 'node:path';
import { detectLang, type Lang } from './analyze.js';
import { jsonToMarkdown } from './jsonRecords.js';
import { parseMarkdown, type Heading } from './markdown.js';
import type { PassageRecord } from '../../machines/chatContract.js';

/**
 * Files the assistant reads. JSON is read only when it is prose organised as records
 * (jsonRecords.ts); licences without extension and binaries are not documentation prose.
 */
const DOC_EXTENSIONS: ReadonlySet<string> = new Set(['.md', '.mdx', '.markdown', '.txt', '.json']);

/** A passage is one section, or a slice of a long section cut at block boundaries. */
const MAX_PASSAGE_CHARS = 1200;

export interface DocRecord {
  path: string;
  title: string;
  lang: Lang;
  mtimeMs: number;
  size: number;
  /** sha256 of the content: a touched but unchanged file is not re-indexed. */
  hash: string;
  headings: Heading[];
  passages: PassageRecord[];
}

export interface FileStat {
  path: string;
  abs: string;
  mtimeMs: number;
  size: number;
}

/** Every documentation file under `root`, relative paths with `/`, sorted; dot folders skipped. */
export function listCorpusFiles(root: string): FileStat[] {
  const out: FileStat[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const abs = join(dir, e.name);
      if (e.isDirectory()) walk(abs);
      else if (e.isFile() && DOC_EXTENSIONS.has(extname(e.name).toLowerCase())) {
        const st = statSync(abs);
        out.push({ path: relative(root, abs).split(sep).join('/'), abs, mtimeMs: st.mtimeMs, size: st.size });
      }
    }
  };
  walk(root);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function hashContent(content: string): string {
  return createHash('sha256').update(content).digest('hex').slice(0, 32);
}

/**
 * The Markdown a document is indexed and shown from: the file itself, except JSON records (one
 * heading per record) and plain text (no headings). Undefined: not documentation (JSON that is
 * not prose records).
 */
export function documentMarkdown(path: string, source: string): string | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === '.json') return jsonToMarkdown(source, basename(path));
  // Plain text has no headings: feeding it to the Markdown lexer would still split paragraphs.
  if (ext === '.txt') return source.replace(/^(#{1,6})\s/gm, '\\$1 ');
  return source;
}

/** Splits one document's source into passages; `path` is relative to the corpus root. Undefined: not documentation. */
export function ingestSource(path: string, source: string, stat: { mtimeMs: number; size: number }): DocRecord | undefined {
  const name = basename(path, extname(path));
  const markdown = documentMarkdown(path, source);
  if (markdown === undefined) return undefined;
  const parsed = parseMarkdown(markdown, name);
  const lang = detectLang(markdown);
  const passages: PassageRecord[] = [];
  for (const s of parsed.sections) {
    const section = s.path.length > 0 ? s.path.join(' › ') : parsed.title;
    let chunk: typeof s.blocks = [];
    let size = 0;
    const flush = (): void => {
      if (chunk.length === 0) return;
      const first = chunk[0]!;
      const last = chunk[chunk.length - 1]!;
      passages.push({
        id: `${path}:${first.lineStart}`,
        path,
        section,
        anchor: s.anchor,
        lineStart: first.lineStart,
        lineEnd: last.lineEnd,
        text: chunk.map((b) => b.text).join('\n\n'),
        lang,
      });
      chunk = [];
      size = 0;
    };
    for (const b of s.blocks) {
      if (size > 0 && size + b.text.length > MAX_PASSAGE_CHARS) flush();
      chunk.push(b);
      size += b.text.length;
    }
    flush();
  }
  return { path, title: parsed.title, lang, mtimeMs: stat.mtimeMs, size: stat.size, hash: hashContent(source), headings: parsed.headings, passages };
}

