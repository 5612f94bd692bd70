import { posix } from 'node:path';
import { Marked, type Tokens } from 'marked';
import sanitizeHtml from 'sanitize-html';
import { createSlugger } from '../../../actors/docs/slug.js';

/**
 * Markdown → sanitised HTML for the viewer (corpus documents) and for answers (model text).
 * marked renders, sanitize-html keeps an allow-list: no <script>, no event handler attribute, no
 * style, no javascript: URL, no iframe/form — whatever a document or a model writes. Heading ids
 * come from the core's slugger (actors/docs/slug.ts) in document order, so `#anchor` of a citation
 * lands on the heading rendered here.
 */

/** URL of a corpus document (and section) in the /docs viewer. */
export function docHref(path: string, anchor?: string): string {
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  return `/docs/${encoded}${anchor ? `#${encodeURIComponent(anchor)}` : ''}`;
}

/** MDX: drop top-level import/export lines (outside code fences); JSX tags are then sanitised away. */
export function stripMdx(source: string): string {
  let fenced = false;
  return source
    .split('\n')
    .filter((line) => {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      return fenced || !/^(import|export)\s/.test(line);
    })
    .join('\n');
}

const DOC_TAGS = [
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'span',
  'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'strong', 'em', 'del', 's', 'sup', 'sub', 'kbd', 'abbr',
  'a', 'img', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption', 'details', 'summary',
  'input',
];

function rewriteLink(href: string, docPath: string | undefined): string {
  // Relative links between corpus documents open in the viewer.
  if (!docPath || /^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/') || href.startsWith('#')) return href;
  const [target = '', hash] = href.split('#', 2);
  if (!/\.(md|mdx|markdown|txt)$/i.test(target)) return href;
  const resolved = posix.normalize(posix.join(posix.dirname(docPath), target));
  if (resolved.startsWith('..')) return href;
  return docHref(resolved, hash);
}

function ownIds(attribs: Record<string, string>): Record<string, string> {
  if (attribs.id === undefined || /^[a-z0-9-]+$/.test(attribs.id)) return attribs;
  const { id: _id, ...rest } = attribs;
  return rest;
}

function sanitizeDocument(markup: string, docPath: string | undefined): string {
  return sanitizeHtml(markup, {
    allowedTags: DOC_TAGS,
    allowedAttributes: {
      '*': ['id', 'title', 'lang'],
      a: ['href', 'title', 'id'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      code: ['class'],
      th: ['align', 'scope'],
      td: ['align'],
      ol: ['start'],
      input: ['type', 'checked', 'disabled'],
    },
    allowedClasses: { code: [/^language-[a-z0-9+-]+$/] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesAppliedToAttributes: ['href', 'src'],
    allowProtocolRelative: false,
    // A script's text must not survive as visible text either.
    nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object'],
    transformTags: {
      // Ids with `_` are the page's own (page_main, chat_panel…): a document may not take them.
      '*': (tagName, attribs) => ({ tagName, attribs: ownIds(attribs) }),
      a: (tagName, attribs) => ({ tagName, attribs: { ...ownIds(attribs), ...(attribs.href ? { href: rewriteLink(attribs.href, docPath) } : {}) } }),
      // Task-list checkboxes only, always inert.
      input: (tagName, attribs) => (attribs.type === 'checkbox' ? { tagName, attribs: { type: 'checkbox', disabled: '', ...(attribs.checked !== undefined ? { checked: '' } : {}) } } : { tagName: 'span', attribs: {} }),
    },
    exclusiveFilter: (frame) => frame.tag === 'a' && !frame.attribs.href && !frame.attribs.id,
  });
}

export interface RenderedDocument {
  html: string;
  /** True when the Markdown has its own level-1 heading (the page then adds none). */
  hasH1: boolean;
}

/** Renders one corpus document with heading ids. */
export function renderDocument(markdown: string, docPath: string): RenderedDocument {
  const slug = createSlugger();
  let hasH1 = false;
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading(this: { parser: { parseInline(tokens: Tokens.Heading['tokens']): string } }, token: Tokens.Heading): string {
        if (token.depth === 1) hasH1 = true;
        const id = slug(token.text);
        return `<h${token.depth} id="${id}" tabindex="-1">${this.parser.parseInline(token.tokens)}</h${token.depth}>\n`;
      },
    },
  });
  const source = /\.mdx$/i.test(docPath) ? stripMdx(markdown) : markdown;
  const raw = /\.(md|mdx|markdown)$/i.test(docPath) ? (marked.parse(source, { async: false }) as string) : `<pre>${escapeText(source)}</pre>`;
  // tabindex is re-added after sanitising (kept off the allow-list so documents cannot set it).
  const clean = sanitizeDocument(raw, docPath).replace(/<(h[1-6]) id="([^"]+)">/g, '<$1 id="$2" tabindex="-1">');
  return { html: clean, hasH1 };
}

function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** Answer text (plain or simple Markdown from a model) → sanitised HTML with no heading levels. */
export function renderAnswer(text: string): string {
  const marked = new Marked({ gfm: true, breaks: true });
  const raw = marked.parse(text, { async: false }) as string;
  return sanitizeHtml(raw, {
    allowedTags: ['p', 'br', 'ul', 'ol', 'li', 'strong', 'em', 'code', 'pre', 'blockquote', 'a', 'del'],
    allowedAttributes: { a: ['href'] },
    allowedSchemes: ['http', 'https'],
    allowProtocolRelative: false,
    nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object'],
    // Headings from a model would break the page outline: keep their text as a paragraph.
    transformTags: { h1: 'p', h2: 'p', h3: 'p', h4: 'p', h5: 'p', h6: 'p' },
  });
}
