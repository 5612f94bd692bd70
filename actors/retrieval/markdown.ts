import { marked, type Token, type Tokens } from 'marked';
import { createSlugger } from '../../machines/docAnchors.js';
import { countLines, frontMatterField, splitFrontMatter } from '../../machines/frontMatter.js';

/**
 * Splits one Markdown/MDX document into sections with heading paths, anchors and line ranges.
 * The marked lexer is used (the viewer renders with marked too) so that fenced code, setext
 * headings and HTML blocks are seen exactly as the viewer sees them.
 */
export interface Heading {
  depth: number;
  /** Heading as plain text. */
  text: string;
  anchor: string;
  line: number;
}

interface Section {
  /** Heading path from the top, e.g. ["Fiche n°14", "Durées"]; empty before the first heading. */
  path: string[];
  anchor: string;
  lineStart: number;
  lineEnd: number;
  /** Blocks of plain text with their first line, to cut long sections at block boundaries. */
  blocks: Array<{ text: string; lineStart: number; lineEnd: number }>;
}

export interface ParsedDocument {
  title: string;
  headings: Heading[];
  sections: Section[];
}

/** An inline code span: backticks, then anything up to the same run of backticks. */
const CODE_SPAN = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g;
const HELD = /\uE000(\d+)\uE001/g;

/**
 * Inline Markdown/HTML to plain text: links keep their label, emphasis and tags go. Inline code is
 * literal: « balise `<img>` » names a tag, it is not one (the RGAA criteria are full of them), so
 * code spans are held aside while tags are stripped, then put back as they were written.
 */
export function plainText(md: string): string {
  const spans: string[] = [];
  const held = md.replace(CODE_SPAN, (_, _ticks: string, code: string) => `\uE000${spans.push(code.trim()) - 1}\uE001`);
  return stripInline(held).replace(HELD, (_, i: string) => spans[Number(i)] ?? '');
}

function stripInline(md: string): string {
  return md
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/?[A-Za-z][^>]*>/g, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    // Emphasis markers go, but not the underscores inside identifiers (CHAT_SCORE_THRESHOLD, _meta).
    .replace(/(\*\*|\*|~~|`)/g, '')
    .replace(/(?<![\p{L}\p{N}_])(__|_)(?=\S)([^_\n]+?)(?<=\S)\1(?![\p{L}\p{N}_])/gu, '$2')
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function tokenText(token: Token): string {
  switch (token.type) {
    case 'space':
    case 'hr':
      return '';
    case 'code':
      return token.text;
    case 'table': {
      const table = token as Tokens.Table;
      const header = table.header.map((c) => c.text).join(' | ');
      const rows = table.rows.map((r) => r.map((c) => c.text).join(' | ')).join('\n');
      return plainText(`${header}\n${rows}`);
    }
    default:
      return plainText(token.raw);
  }
}

/** Parses a document; `fallbackTitle` (the file name) is used when it has no title or H1. */
export function parseMarkdown(source: string, fallbackTitle: string): ParsedDocument {
  const fm = splitFrontMatter(source);
  const body = fm.body;
  let line = 1 + fm.lines;
  let title = fm.block !== undefined ? frontMatterField(fm.block, 'title') : undefined;
  // A page's front-matter description is prose about the page (some pages have nothing else).
  const description = fm.block !== undefined ? frontMatterField(fm.block, 'description') : undefined;

  const slug = createSlugger();
  const headings: Heading[] = [];
  const sections: Section[] = [];
  const stack: string[] = [];
  let current: Section = { path: [], anchor: '', lineStart: line, lineEnd: line, blocks: [] };
  sections.push(current);
  if (description) current.blocks.push({ text: plainText(description), lineStart: 1, lineEnd: line - 1 });

  for (const token of marked.lexer(body)) {
    const start = line;
    const rawLines = countLines(token.raw);
    line += rawLines;
    if (token.type === 'heading') {
      const text = plainText(token.text);
      const anchor = slug(token.text);
      headings.push({ depth: token.depth, text, anchor, line: start });
      if (!title && token.depth === 1) title = text;
      stack.length = Math.min(stack.length, token.depth - 1);
      while (stack.length < token.depth - 1) stack.push('');
      stack.push(text);
      current = { path: stack.filter(Boolean), anchor, lineStart: start, lineEnd: start, blocks: [] };
      sections.push(current);
      continue;
    }
    const text = tokenText(token);
    if (!text) continue;
    // A block's last line: trailing newlines of raw are separators, not content.
    const end = start + countLines(token.raw.replace(/\n+$/, ''));
    current.blocks.push({ text, lineStart: start, lineEnd: end });
    current.lineEnd = end;
  }
  return { title: title ?? fallbackTitle, headings, sections: sections.filter((s) => s.blocks.length > 0) };
}
