import { describe, expect, it } from 'vitest';
import { docHref, renderAnswer, renderDocument, stripMdx } from '../../transports/http/pages/markdown.js';
import { html, trusted } from '../../web/layout.js';

/** What reaches the page from a document or a model: allow-listed HTML only. */

const HOSTILE = [
  '<script>alert(1)</script>',
  '<img src="x" onerror="alert(1)">',
  '<a href="javascript:alert(1)">clic</a>',
  '<a href="JaVaScRiPt:alert(1)">clic2</a>',
  '<iframe src="https://example.org"></iframe>',
  '<p style="position:fixed;inset:0">cover</p>',
  '<form action="/admin/chat/params" method="post"><button>go</button></form>',
  '<svg onload="alert(1)"><circle/></svg>',
  '[md link](javascript:alert(1))',
  '<div onclick="alert(1)" id="page_main">x</div>',
].join('\n\n');

function assertInert(out: string): void {
  expect(out).not.toMatch(/<script|<iframe|<form|<svg|<button/i);
  expect(out).not.toMatch(/\son[a-z]+=/i);
  expect(out).not.toMatch(/javascript:/i);
  expect(out).not.toMatch(/style=/i);
  expect(out).not.toContain('alert(1)</');
}

describe('renderDocument', () => {
  it('drops scripts, handlers, javascript: URLs, frames, forms, styles and page ids', () => {
    const { html: out } = renderDocument(`# Titre\n\n${HOSTILE}`, 'x.md');
    assertInert(out);
    expect(out).not.toContain('id="page_main"');
    expect(out).toContain('cover');
  });

  it('gives headings the shared slugger ids (accents folded, duplicates numbered) and focusability', () => {
    const { html: out, hasH1 } = renderDocument('# Données\n\n## Durées de conservation\n\n## Durées de conservation\n', 'a/b.md');
    expect(hasH1).toBe(true);
    expect(out).toContain('<h1 id="donnees" tabindex="-1">Données</h1>');
    expect(out).toContain('<h2 id="durees-de-conservation" tabindex="-1">');
    expect(out).toContain('<h2 id="durees-de-conservation-1" tabindex="-1">');
  });

  it('rewrites relative links between documents to the viewer, leaves external ones', () => {
    const { html: out } = renderDocument('[a](../c/d.md#sec) [b](https://example.org/x.md) [c](e.mdx)', 'a/b.md');
    expect(out).toContain('href="/docs/c/d.md#sec"');
    expect(out).toContain('href="https://example.org/x.md"');
    expect(out).toContain('href="/docs/a/e.mdx"');
  });

  it('shows text files as preformatted text, escaped', () => {
    const { html: out } = renderDocument('<script>x</script> & co', 'notes.txt');
    expect(out).toBe('<pre>&lt;script&gt;x&lt;/script&gt; &amp; co</pre>');
  });

  it('MDX: import/export lines go, code fences keep theirs', () => {
    const src = "import A from './a'\nexport const meta = {}\n\n```js\nimport x from 'y'\n```\n";
    expect(stripMdx(src)).toBe("\n```js\nimport x from 'y'\n```\n");
  });
});

describe('renderAnswer', () => {
  it('keeps simple Markdown, makes headings paragraphs, and neutralises hostile markup from a model', () => {
    const out = renderAnswer(`## Réponse\n\n**Oui**, voir \`tools/list\`.\n\n${HOSTILE}`);
    assertInert(out);
    expect(out).toContain('<p>Réponse</p>');
    expect(out).toContain('<strong>Oui</strong>');
    expect(out).toContain('<code>tools/list</code>');
    expect(out).not.toMatch(/<h[1-6]/);
  });
});

describe('html template and links', () => {
  it('escapes interpolations unless trusted', () => {
    expect(html`<p title="${'"><script>'}">${'<b>'}${trusted('<i>ok</i>')}</p>`.value).toBe('<p title="&quot;&gt;&lt;script&gt;">&lt;b&gt;<i>ok</i></p>');
  });

  it('encodes each path segment of a document link', () => {
    expect(docHref('rgpd/14-Gérer la durée.md', 'durees')).toBe('/docs/rgpd/14-G%C3%A9rer%20la%20dur%C3%A9e.md#durees');
  });
});
