import { createRequire } from 'node:module';
import { posix } from 'node:path';
import { Marked, type Tokens } from 'marked';
import type SanitizeHtml from 'sanitize-html';
import { createSlugger } from '../../machines/docAnchors.js';
import { splitFrontMatter } from '../../machines/frontMatter.js';
import type { LinkResolver } from './corpusLinks.js';
import { mdxToHtml } from './mdxComponents.js';

/**
 * Markdown → sanitised HTML for the viewer (corpus documents) and for answers (model text).
 * marked renders, sanitize-html keeps an allow-list: no <script>, no event handler attribute, no
 * style, no javascript: URL, no iframe/form — whatever a document or a model writes. Heading ids
 * come from the shared slugger (machines/docAnchors.ts) in document order, so `#anchor` of a citation
 * lands on the heading rendered here.
 */

// sanitize-html (with htmlparser2 and postcss) is loaded on the first page rendered, not at start:
// an idle `palabre serve` does not hold it (idle RSS, bench/serve-start.ts). It is CommonJS, so the load
// stays synchronous and so do the render functions.
const require = createRequire(import.meta.url);
let sanitizer: typeof SanitizeHtml | undefined;
function sanitizeHtml(dirty: string, options: SanitizeHtml.IOptions): string {
  sanitizer ??= require('sanitize-html') as typeof SanitizeHtml;
  return sanitizer(dirty, options);
}

/** URL of a corpus document (and section) in the /docs viewer. */
export function docHref(path: string, anchor?: string): string {
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  return `/docs/${encoded}${anchor ? `#${encodeURIComponent(anchor)}` : ''}`;
}

/** MDX: drop top-level import/export lines (outside code fences); components are mdxComponents.ts's. */
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
  'input', 'figure', 'figcaption', 'div',
];

/** How a document's links and images are resolved (the viewer passes what it knows of the corpus). */
export interface RenderContext {
  /** Site links between corpus pages → corpus paths (corpusLinks.ts). */
  resolve?: LinkResolver;
  /** Does a corpus-relative image file exist (served by the viewer)? */
  imageExists?: (path: string) => boolean;
}

/** A link to a page of the source site that is not in the corpus: shown as text, not a 404 link. */
const UNRESOLVED = '';

function rewriteLink(href: string, docPath: string | undefined, ctx: RenderContext): string {
  if (!docPath || /^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#') || href.startsWith('//')) return href;
  const viaSite = ctx.resolve?.(href, docPath);
  if (viaSite) {
    const [path = '', hash] = viaSite.split('#', 2);
    return docHref(path, hash);
  }
  // Knowing the corpus (the viewer does), a site path or a file it does not hold would 404 here.
  if (ctx.resolve) return UNRESOLVED;
  if (href.startsWith('/')) return href;
  // Relative links between corpus documents open in the viewer.
  const [target = '', hash] = href.split('#', 2);
  if (!/\.(md|mdx|markdown|txt|json)$/i.test(target)) return href;
  const resolved = posix.normalize(posix.join(posix.dirname(docPath), target));
  if (resolved.startsWith('..')) return href;
  return docHref(resolved, hash);
}

/**
 * Images: a corpus image the viewer serves stays an image; any other (another site's, which the
 * page's CSP blocks, or a file that is not in the corpus) becomes a link or text with its alt text.
 */
function transformImage(attribs: Record<string, string>, docPath: string | undefined, ctx: RenderContext): { tagName: string; attribs: Record<string, string>; text?: string } {
  const src = attribs.src ?? '';
  const alt = (attribs.alt ?? '').trim();
  const label = `Image : ${alt || 'sans description'}`;
  if (/^https?:/i.test(src)) return { tagName: 'a', attribs: { href: src, class: 'external-image' }, text: label };
  const local = docPath && src && !src.startsWith('/') ? posix.normalize(posix.join(posix.dirname(docPath), src)) : undefined;
  if (local && !local.startsWith('..') && ctx.imageExists?.(local)) {
    return { tagName: 'img', attribs: { ...attribs, src: `/docs/${local.split('/').map(encodeURIComponent).join('/')}`, alt } };
  }
  return { tagName: 'span', attribs: { class: 'missing-image' }, text: `[${label}]` };
}

function ownIds(attribs: Record<string, string>): Record<string, string> {
  if (attribs.id === undefined || /^[a-z0-9-]+$/.test(attribs.id)) return attribs;
  const { id: _id, ...rest } = attribs;
  return rest;
}

function sanitizeDocument(markup: string, docPath: string | undefined, ctx: RenderContext): string {
  return sanitizeHtml(markup, {
    allowedTags: DOC_TAGS,
    allowedAttributes: {
      '*': ['id', 'title', 'lang'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      code: ['class'],
      a: ['href', 'title', 'id', 'class'],
      span: ['class', 'lang', 'title'],
      figure: ['class'],
      div: ['class'],
      p: ['class'],
      ol: ['start', 'class'],
      ul: ['class'],
      li: ['class'],
      th: ['align', 'scope'],
      td: ['align'],
      input: ['type', 'checked', 'disabled'],
    },
    allowedClasses: {
      code: [/^language-[a-z0-9+-]+$/],
      a: ['external-image'],
      span: ['missing-image', 'offsite-link', 'tooltip-tip'],
      figure: ['diagram'],
      // What mdxComponents.ts makes of callouts, cards, steps, tabs and frames.
      div: ['callout', /^callout-[a-z]+$/, 'code-group', 'tabs', 'tab', 'accordions', 'frame'],
      p: ['callout-title', 'step-title', 'card-title', 'tab-title', 'frame-caption', 'code-title'],
      ol: ['steps'],
      ul: ['cards'],
      li: ['step', 'card'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesAppliedToAttributes: ['href', 'src'],
    allowProtocolRelative: false,
    // A script's text must not survive as visible text either.
    nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object'],
    transformTags: {
      // Ids with `_` are the page's own (page_main, chat_panel…): a document may not take them.
      '*': (tagName, attribs) => ({ tagName, attribs: ownIds(attribs) }),
      a: (tagName, attribs): { tagName: string; attribs: Record<string, string> } => {
        const href = attribs.href ? rewriteLink(attribs.href, docPath, ctx) : undefined;
        if (href === UNRESOLVED) return { tagName: 'span', attribs: { class: 'offsite-link', title: 'Page du site d’origine, absente de cette documentation' } };
        return { tagName, attribs: { ...ownIds(attribs), ...(href ? { href } : {}) } };
      },
      img: (_tagName, attribs) => transformImage(attribs, docPath, ctx),
      // Task-list checkboxes only, always inert.
      input: (tagName, attribs) => (attribs.type === 'checkbox' ? { tagName, attribs: { type: 'checkbox', disabled: '', ...(attribs.checked !== undefined ? { checked: '' } : {}) } } : { tagName: 'span', attribs: {} }),
    },
    exclusiveFilter: (frame) =>
      frame.tag === 'a' &&
      ((!frame.attribs.href && !frame.attribs.id && frame.attribs.class !== 'offsite-link') ||
        // An icon-only link (a generator's SVG "permalink") is empty once the SVG is gone: a link without a name.
        (!frame.text.trim() && frame.mediaChildren.length === 0 && frame.attribs.class !== 'external-image')),
  });
}

export interface RenderedDocument {
  html: string;
  /** True when the Markdown has its own level-1 heading (the page then adds none). */
  hasH1: boolean;
}

const escapeAttr = (text: string): string => escapeText(text).replace(/"/g, '&quot;');

/** `name`, numbered when the page holds several (landmarks of one kind need distinct names). */
function numbered(name: string, n: number, total: number): string {
  return total > 1 ? `${name} ${n}` : name;
}

/**
 * tabindex, role and aria-label are added after sanitising (off the allow-list, so documents
 * cannot set them). Each code block and table that may scroll sideways is a keyboard-focusable
 * region; regions are landmarks, so each gets its own name (« Bloc de code 2 », « Tableau 1 »).
 */
function labelRegions(clean: string): string {
  const count = (re: RegExp): number => clean.match(re)?.length ?? 0;
  const diagrams = count(/<figure class="diagram">/g);
  const codes = count(/<pre>/g) - diagrams;
  const tables = count(/<table>/g);
  let d = 0;
  let c = 0;
  let t = 0;
  return clean
    .replace(/<(h[1-6]) id="([^"]+)">/g, '<$1 id="$2" tabindex="-1">')
    .replace(/<figure class="diagram"><figcaption>[^<]*<\/figcaption><pre>|<pre>/g, (match) => {
      if (match === '<pre>') return `<pre tabindex="0" role="region" aria-label="${escapeAttr(numbered('Bloc de code', ++c, codes))}">`;
      const name = numbered('Diagramme', ++d, diagrams);
      return `<figure class="diagram"><figcaption>${escapeText(name)} (Mermaid)</figcaption><pre tabindex="0" role="region" aria-label="${escapeAttr(`Source Mermaid — ${name}`)}">`;
    })
    .replace(/<table>/g, () => `<div class="table-scroll" tabindex="0" role="region" aria-label="${escapeAttr(numbered('Tableau', ++t, tables))}"><table>`)
    // An empty header cell (a corner of a two-way table) heads nothing: a plain cell, not a nameless header.
    .replace(/<th(\s[^>]*)?>\s*<\/th>/g, '<td$1></td>')
    .replace(/<\/table>/g, '</table></div>');
}

/**
 * Renders one corpus document with heading ids. Front matter (YAML `---` or TOML `+++`) is never
 * shown; MDX components become their HTML counterparts (mdxComponents.ts); fenced `mermaid`
 * blocks are a figure holding their source, which web/static/diagrams.js draws in the browser.
 */
export function renderDocument(markdown: string, docPath: string, ctx: RenderContext = {}): RenderedDocument {
  const slug = createSlugger();
  let hasH1 = false;
  const mdx = /\.mdx$/i.test(docPath);
  const marked = new Marked({
    gfm: true,
    // MDX has no indented code blocks: content indented inside a component (`<Card>` children) is prose.
    ...(mdx ? { tokenizer: { code: (): undefined => undefined } } : {}),
    renderer: {
      heading(this: { parser: { parseInline(tokens: Tokens.Heading['tokens']): string } }, token: Tokens.Heading): string {
        if (token.depth === 1) hasH1 = true;
        const id = slug(token.text);
        return `<h${token.depth} id="${id}" tabindex="-1">${this.parser.parseInline(token.tokens)}</h${token.depth}>\n`;
      },
      code(token: Tokens.Code): string | false {
        const [lang = '', ...words] = (token.lang ?? '').trim().split(/\s+/);
        if (lang.toLowerCase() === 'mermaid') return `<figure class="diagram"><figcaption>Diagramme</figcaption><pre><code class="language-mermaid">${escapeText(token.text)}</code></pre></figure>\n`;
        // A fence's title after its language (```json Initialize Request, in MDX code groups) is shown above it.
        const title = words.join(' ').replace(/\{[^}]*\}/g, '').trim();
        if (!title) return false;
        return `<p class="code-title">${escapeText(title)}</p>\n<pre><code class="language-${escapeText(lang.toLowerCase())}">${escapeText(token.text.replace(/\n$/, ''))}\n</code></pre>\n`;
      },
    },
  });
  const body = splitFrontMatter(markdown).body;
  const source = mdx ? mdxToHtml(stripMdx(body)) : body;
  const raw = /\.(md|mdx|markdown|json)$/i.test(docPath) ? (marked.parse(source, { async: false }) as string) : `<pre>${escapeText(source)}</pre>`;
  return { html: labelRegions(sanitizeDocument(raw, docPath, ctx)), hasH1 };
}

function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/**
 * Answer text (plain or simple Markdown from a model) → sanitised HTML with no heading levels.
 * An answer is text: whatever in it looks like a tag (« balise <img> », `prompts/<surface>/`, a
 * quoted `<script>`) is shown as written, escaped, never parsed as markup. Only Markdown syntax
 * (emphasis, lists, code, links) becomes HTML, and sanitize-html still keeps an allow-list.
 */
export function renderAnswer(text: string): string {
  const marked = new Marked({
    gfm: true,
    breaks: true,
    renderer: {
      html(token: Tokens.HTML | Tokens.Tag): string {
        const shown = escapeText(token.text);
        return token.block ? `<p>${shown.trimEnd()}</p>\n` : shown;
      },
    },
  });
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
