import { describe, expect, it } from 'vitest';
import { parseMarkdown, plainText } from '../../actors/retrieval/markdown.js';
import { createLinkResolver } from '../../web/docs/corpusLinks.js';
import { docHref, renderAnswer, renderDocument, stripMdx } from '../../web/docs/markdownRender.js';
import { html, trusted } from '../../web/html.js';

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
    expect(out).toBe('<pre tabindex="0" role="region" aria-label="Bloc de code">&lt;script&gt;x&lt;/script&gt; &amp; co</pre>');
  });

  it('never shows front matter (YAML or TOML); the title comes from it when there is no H1', () => {
    for (const src of ['---\ntitle: Accueil\nlayout: base.njk\neleventyNavigation:\n  title: Accueil\n---\n\nTexte.\n', '+++\ntitle = "Accueil"\nweight = 2\n+++\n\nTexte.\n']) {
      const { html: out } = renderDocument(src, 'index.md');
      expect(out).toBe('<p>Texte.</p>\n');
    }
    expect(parseMarkdown('+++\ntitle = "Accueil"\n+++\n\nTexte.\n', 'x').title).toBe('Accueil');
  });

  it('external images become a link with their alt text; corpus images the viewer serves stay images', () => {
    const { html: out } = renderDocument('![Schéma](https://example.org/a.png)\n\n![Local](img/b.png)\n\n![Absent](img/c.png)\n', 'guide/x.md', { imageExists: (p) => p === 'guide/img/b.png' });
    expect(out).toContain('<a href="https://example.org/a.png" class="external-image">Image : Schéma</a>');
    expect(out).toContain('<img src="/docs/guide/img/b.png" alt="Local" />');
    expect(out).toContain('<span class="missing-image">[Image : Absent]</span>');
    expect(out).not.toContain('src="https://');
  });

  it('drops icon-only links that would have no name once their SVG is gone (generated permalinks)', () => {
    const { html: out } = renderDocument('<p>Titre <a href="#x" aria-label="Permalink"><svg viewBox="0 0 1 1"><use href="i.svg#a"/></svg></a> <a href="https://y.org">texte</a></p>', 'x.md');
    expect(out).not.toContain('href="#x"');
    expect(out).toContain('<a href="https://y.org">texte</a>');
  });

  it('mermaid is a figure holding its source; code blocks and tables are focusable regions, each with its own name', () => {
    const { html: out } = renderDocument('```mermaid\ngraph TD; A-->B\n```\n\n```js\nlet x = 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n', 'x.md');
    expect(out).toContain('<figure class="diagram"><figcaption>Diagramme (Mermaid)</figcaption><pre tabindex="0" role="region" aria-label="Source Mermaid — Diagramme"><code class="language-mermaid">graph TD; A--&gt;B');
    expect(out).toContain('<pre tabindex="0" role="region" aria-label="Bloc de code"><code class="language-js">');
    expect(out).toContain('<div class="table-scroll" tabindex="0" role="region" aria-label="Tableau"><table>');
    // Several of a kind: landmarks need distinct names (axe landmark-unique).
    const many = renderDocument('```js\na\n```\n\n```js\nb\n```\n\n```mermaid\ngraph TD; A-->B\n```\n\n```mermaid\ngraph TD; C-->D\n```\n\n| a |\n|---|\n| 1 |\n\n| b |\n|---|\n| 2 |\n', 'x.md').html;
    const labels = [...many.matchAll(/aria-label="([^"]+)"/g)].map((m) => m[1]);
    expect(labels).toEqual(['Bloc de code 1', 'Bloc de code 2', 'Source Mermaid — Diagramme 1', 'Source Mermaid — Diagramme 2', 'Tableau 1', 'Tableau 2']);
    // An empty header cell (the corner of a two-way table) is a plain cell: a header needs a name.
    expect(renderDocument('|  | Oui | Non |\n|---|:---:|---|\n| A | 1 | 2 |\n', 'x.md').html).toContain('<tr>\n<td></td>\n<th align="center">Oui</th>');
    // A fence's title (MDX code groups) is shown above its block.
    expect(renderDocument('```json Initialize Request\n{}\n```\n', 'x.mdx').html).toContain('<p class="code-title">Initialize Request</p>\n<pre tabindex="0" role="region" aria-label="Bloc de code"><code class="language-json">{}');
  });

  it('MDX components render their content: callouts, cards with their links, steps, code groups, tooltips, unknown ones', () => {
    const src = [
      "import { X } from '/snippets/x.mdx'",
      '',
      'Intro with a <Tooltip tip="A subset can be stateless">stateful protocol</Tooltip> here.',
      '',
      '<Note>',
      '  Read [the spec](https://example.org/spec) **first**.',
      '</Note>',
      '',
      '<CardGroup cols={2}>',
      '  <Card',
      '    title="Architecture"',
      '    icon="sitemap"',
      '    href="/specification/2025-06-18/architecture"',
      '  />',
      '  <Card title="Offline">Body of the card.</Card>',
      '  <Card title="Indented">',
      '    Four spaces in, still prose (MDX has no indented code).',
      '  </Card>',
      '</CardGroup>',
      '',
      '<Steps>',
      '<Step title="Initialization">',
      '',
      'The client sends `initialize` and `<Card>` stays code.',
      '',
      '<CodeGroup>',
      '  ```json Request',
      '  {"id": 1, "x": "<Note>"}',
      '  ```',
      '</CodeGroup>',
      '</Step>',
      '</Steps>',
      '',
      '<Warning title="Careful">Do not.</Warning>',
      '',
      '<ResponseField name="x" title="Field x">',
      'Unknown component text.',
      '</ResponseField>',
    ].join('\n');
    const resolve = createLinkResolver(['mcp/spec_architecture_index.mdx', 'mcp/spec_index.mdx']);
    const { html: out } = renderDocument(src, 'mcp/spec_index.mdx', { resolve });
    expect(out).toContain('stateful protocol <span class="tooltip-tip">(A subset can be stateless)</span> here.');
    expect(out).toMatch(/<div class="callout callout-note"><p class="callout-title"><strong>Note<\/strong><\/p>\s*<p>\s*Read <a href="https:\/\/example.org\/spec">the spec<\/a> <strong>first<\/strong>.<\/p>\s*<\/div>/);
    expect(out).toContain('<ul class="cards">');
    expect(out).toContain('<li class="card"><p class="card-title"><a href="/docs/mcp/spec_architecture_index.mdx">Architecture</a></p></li>');
    expect(out).toContain('<li class="card"><p class="card-title"><strong>Offline</strong></p>Body of the card.</li>');
    expect(out).toMatch(/<p>\s*Four spaces in, still prose \(MDX has no indented code\).<\/p>/);
    expect(out).toContain('<ol class="steps">');
    expect(out).toContain('<li class="step"><p class="step-title"><strong>Initialization</strong></p>');
    expect(out).toContain('<code>initialize</code> and <code>&lt;Card&gt;</code> stays code.');
    expect(out).toContain('<div class="code-group">');
    expect(out).toContain('<p class="code-title">Request</p>');
    expect(out).toContain('{"id": 1, "x": "&lt;Note&gt;"}');
    expect(out).toContain('<div class="callout callout-warning"><p class="callout-title"><strong>Careful</strong></p>Do not.</div>');
    expect(out).toContain('<p><strong>Field x</strong></p>');
    expect(out).toContain('Unknown component text.');
    expect(out).not.toMatch(/<\/?(card|note|steps?|tooltip|codegroup|responsefield)\b/i);
    expect(out).not.toContain('snippets');
  });

  it('site links between flattened corpus pages open in the viewer', () => {
    const resolve = createLinkResolver(['mcp/spec_basic_lifecycle.mdx', 'mcp/spec_server_resources.mdx', 'mcp/spec_server_tools.mdx', 'mcp/learn_server-concepts.mdx', 'rgaa/obligations_evaluation-conformite.md']);
    const { html: out } = renderDocument(
      '[a](/specification/2025-06-18/basic/lifecycle#timeouts) [b](./resources#common-uri-schemes) [c](/obligations/evaluation-conformite/) [d](/specification/2025-06-18/basic/security_best_practices)',
      'mcp/spec_server_tools.mdx',
      { resolve },
    );
    expect(out).toContain('href="/docs/mcp/spec_basic_lifecycle.mdx#timeouts"');
    expect(out).toContain('href="/docs/mcp/spec_server_resources.mdx#common-uri-schemes"');
    expect(out).toContain('href="/docs/rgaa/obligations_evaluation-conformite.md"');
    // A page of the source site that is not in the corpus is text, not a link that would 404 here.
    expect(out).not.toContain('security_best_practices');
    expect(out).toContain('<span class="offsite-link" title="Page du site d’origine, absente de cette documentation">d</span>');
    expect(resolve('./server-concepts', 'mcp/learn_architecture.mdx')).toBe('mcp/learn_server-concepts.mdx');
  });

  it('MDX: import/export lines go, code fences keep theirs', () => {
    const src = "import A from './a'\nexport const meta = {}\n\n```js\nimport x from 'y'\n```\n";
    expect(stripMdx(src)).toBe("\n```js\nimport x from 'y'\n```\n");
  });
});

/**
 * An answer is text: escaped markup is inert whatever it says, so what matters is the markup that
 * is real. Text cannot hold a `<` once escaped, so every `<` starts a tag the renderer made.
 */
function assertAnswerInert(out: string): void {
  for (const [, name = '', attrs = ''] of out.matchAll(/<\/?([a-z0-9]+)([^>]*)>/gi)) {
    expect(['p', 'br', 'ul', 'ol', 'li', 'strong', 'em', 'code', 'pre', 'blockquote', 'a', 'del']).toContain(name.toLowerCase());
    for (const [, attr = '', value = ''] of attrs.matchAll(/([a-z-]+)="([^"]*)"/gi)) {
      expect(attr).toBe('href');
      expect(value).toMatch(/^https?:/);
    }
  }
}

describe('renderAnswer', () => {
  it('keeps simple Markdown, makes headings paragraphs, and neutralises hostile markup from a model', () => {
    const out = renderAnswer(`## Réponse\n\n**Oui**, voir \`tools/list\`.\n\n${HOSTILE}`);
    assertAnswerInert(out);
    expect(out).toContain('<p>Réponse</p>');
    expect(out).toContain('<strong>Oui</strong>');
    expect(out).toContain('<code>tools/list</code>');
    expect(out).not.toMatch(/<h[1-6]/);
    // The hostile markup is shown as the text it is, never parsed.
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('&lt;img src="x" onerror="alert(1)"&gt;');
    expect(out).not.toMatch(/<(script|img|iframe|form|svg|button|div)\b/i);
  });

  it('shows text in angle brackets as written (escaped), in inline code, prose and quotes alike', () => {
    const quote = 'Chaque image objet (balise <object>) a-t-elle une alternative textuelle ?';
    const out = renderAnswer(`La balise \`<img>\` et la balise <img> (voir \`prompts/<surface>/\` et prompts/<surface>/) : « ${quote} » [1]. Fin.`);
    assertAnswerInert(out);
    expect(out).toContain('<code>&lt;img&gt;</code> et la balise &lt;img&gt; (voir <code>prompts/&lt;surface&gt;/</code> et prompts/&lt;surface&gt;/)');
    expect(out).toContain('« Chaque image objet (balise &lt;object&gt;) a-t-elle une alternative textuelle ? » [1]. Fin.');
    // A block that starts with a tag is a paragraph of text too.
    expect(renderAnswer('<object data="x">\nsuite</object>')).toBe('<p>&lt;object data="x"&gt;\nsuite&lt;/object&gt;</p>\n');
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

describe('passage text (plainText)', () => {
  it('keeps tags named in inline code (« balise `<img>` »), strips real tags, emphasis and links', () => {
    expect(plainText('Chaque [image](#img) (balise `<img>` ou `role="img"`) a une <b>alternative</b> &amp; __un__ `CHAT_SCORE_THRESHOLD`'))
      .toBe('Chaque image (balise <img> ou role="img") a une alternative & un CHAT_SCORE_THRESHOLD');
    expect(plainText('``a ` b`` et `x`')).toBe('a ` b et x');
    const doc = parseMarkdown('# Critère\n\n- Chaque balise `<object>` ou `<embed>` a une alternative.\n', 'x');
    const text = doc.sections.flatMap((sec) => sec.blocks.map((b) => b.text)).join(' ');
    expect(text).toContain('balise <object> ou <embed> a une alternative');
  });
});
