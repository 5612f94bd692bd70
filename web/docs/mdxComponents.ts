/**
 * MDX components of documentation sites (Mintlify, Docusaurus-like: `<Note>`, `<Card>`,
 * `<CardGroup>`, `<Steps>`, `<Tooltip>` …) → the HTML they stand for, before Markdown rendering.
 * Left as they are, Markdown treats them as unknown raw HTML: the sanitiser then drops the tag,
 * so a `<Card title="…" href="…" />` (all in its attributes) vanishes, and the Markdown inside a
 * `<Note>` is shown as raw text. Here each component on its own line becomes an allow-listed
 * element surrounded by blank lines (so the Markdown inside is parsed), its `title`/`href`
 * become visible content, and an unknown component keeps its content. Fenced code and inline
 * code spans are left untouched. The result still goes through sanitize-html (markdownRender.ts).
 */

type Attrs = Record<string, string>;

interface Mapping {
  open(attrs: Attrs, name: string): string;
  close: string;
}

const escape = (text: string): string => text.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));

const titled = (attrs: Attrs, cls: string): string => (attrs.title ? `<p class="${cls}"><strong>${escape(attrs.title)}</strong></p>` : '');

const callout = (attrs: Attrs, name: string): string =>
  `<div class="callout callout-${name.toLowerCase()}"><p class="callout-title"><strong>${escape(attrs.title || name)}</strong></p>`;

const BLOCKS: Record<string, Mapping> = {
  Note: { open: callout, close: '</div>' },
  Info: { open: callout, close: '</div>' },
  Tip: { open: callout, close: '</div>' },
  Warning: { open: callout, close: '</div>' },
  Danger: { open: callout, close: '</div>' },
  Check: { open: callout, close: '</div>' },
  Callout: { open: (a) => callout(a, 'Note'), close: '</div>' },
  Steps: { open: () => '<ol class="steps">', close: '</ol>' },
  Step: { open: (a) => `<li class="step">${titled(a, 'step-title')}`, close: '</li>' },
  CardGroup: { open: () => '<ul class="cards">', close: '</ul>' },
  Columns: { open: () => '<ul class="cards">', close: '</ul>' },
  Card: {
    open: (a) => {
      const title = a.title ? escape(a.title) : '';
      const head = a.href ? `<a href="${escape(a.href)}">${title || escape(a.href)}</a>` : title ? `<strong>${title}</strong>` : '';
      return `<li class="card">${head ? `<p class="card-title">${head}</p>` : ''}`;
    },
    close: '</li>',
  },
  CodeGroup: { open: () => '<div class="code-group">', close: '</div>' },
  Tabs: { open: () => '<div class="tabs">', close: '</div>' },
  Tab: { open: (a) => `<div class="tab">${titled(a, 'tab-title')}`, close: '</div>' },
  AccordionGroup: { open: () => '<div class="accordions">', close: '</div>' },
  Accordion: { open: (a) => `<details><summary>${escape(a.title || 'Détails')}</summary>`, close: '</details>' },
  Expandable: { open: (a) => `<details><summary>${escape(a.title || 'Détails')}</summary>`, close: '</details>' },
  Frame: { open: (a) => `<div class="frame">${a.caption ? `<p class="frame-caption">${escape(a.caption)}</p>` : ''}`, close: '</div>' },
};

/** Inline components: the tip of a `<Tooltip>` is shown after its text (hover-only text is lost on touch and to the keyboard). */
const INLINE: Record<string, Mapping> = {
  Tooltip: { open: () => '', close: '' },
};

const ATTR = /([A-Za-z_:][-A-Za-z0-9_:.]*)(?:\s*=\s*("[^"]*"|'[^']*'|\{[^{}]*\}))?/g;

function parseAttrs(source: string): Attrs {
  const attrs: Attrs = {};
  for (const [, name = '', raw] of source.matchAll(ATTR)) {
    let value = raw ?? 'true';
    if (value.startsWith('{')) value = value.slice(1, -1).trim();
    if (/^(["'`]).*\1$/s.test(value)) value = value.slice(1, -1);
    attrs[name] = value;
  }
  return attrs;
}

// An inline code span (left as is), or a JSX tag whose name starts with a capital letter.
const TOKEN = /(`+)[\s\S]*?\1|<(\/?)([A-Z][A-Za-z0-9]*)((?:\s+[A-Za-z_:][-A-Za-z0-9_:.]*(?:\s*=\s*(?:"[^"]*"|'[^']*'|\{[^{}]*\}))?)*)\s*(\/?)>/g;

function aloneOnLine(text: string, start: number, end: number): boolean {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const lineEnd = text.indexOf('\n', end);
  return !text.slice(lineStart, start).trim() && !text.slice(end, lineEnd === -1 ? undefined : lineEnd).trim();
}

const block = (markup: string): string => `\n\n${markup}\n\n`;

function convertProse(text: string): string {
  const tips: string[] = [];
  return text.replace(TOKEN, (match: string, ticks: string | undefined, slash: string, name: string, attrSource: string, selfClosing: string, offset: number) => {
    if (ticks) return match;
    const attrs = parseAttrs(attrSource ?? '');
    if (INLINE[name]) {
      if (slash) return tips.pop() ?? '';
      const tip = attrs.tip ? ` <span class="tooltip-tip">(${escape(attrs.tip)})</span>` : '';
      if (selfClosing) return tip;
      tips.push(tip);
      return '';
    }
    const isBlock = aloneOnLine(text, offset, offset + match.length);
    const mapping = BLOCKS[name];
    if (!mapping) {
      // An unknown component keeps its content; its title, if any, stays visible.
      if (slash) return isBlock ? block('') : '';
      const head = attrs.title ? `<strong>${escape(attrs.title)}</strong>` : '';
      return isBlock ? block(head ? `<p>${head}</p>` : '') : head;
    }
    if (slash) return isBlock ? block(mapping.close) : mapping.close;
    const open = mapping.open(attrs, name) + (selfClosing ? mapping.close : '');
    return isBlock ? block(open) : open;
  });
}

/** Converts the MDX components outside fenced code (``` or ~~~, indented or not). */
export function mdxToHtml(source: string): string {
  const out: string[] = [];
  let prose: string[] = [];
  let fence: string | undefined;
  const flush = (): void => {
    if (prose.length) out.push(convertProse(prose.join('\n')));
    prose = [];
  };
  for (const line of source.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1] ?? /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      out.push(line);
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && !line.trim().slice(marker.length).trim()) fence = undefined;
      continue;
    }
    if (marker) {
      flush();
      fence = marker;
      out.push(line);
      continue;
    }
    prose.push(line);
  }
  flush();
  return out.join('\n');
}
