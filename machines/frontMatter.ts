/**
 * Front matter of a corpus document, read alike by the index (actors/retrieval/markdown.ts) and
 * the /docs viewer (web/docs/), so both see the same body and the same line numbers.
 */

/** YAML (`---`) or TOML (`+++`) front matter at the very top of a file (Jekyll, Eleventy, Hugo, Mintlify). */
const FRONT_MATTER = /^(---|\+\+\+)\r?\n([\s\S]*?)\r?\n\1[ \t]*(?:\r?\n|$)/;

/** A top-level string field of a front-matter block (`title: x`, `title = "x"`); nested keys are not read. */
export function frontMatterField(block: string, key: string): string | undefined {
  const m = new RegExp(`^${key}\\s*[:=]\\s*(.*?)\\s*$`, 'm').exec(block);
  const v = m?.[1]?.replace(/^(["'])(.*)\1$/, '$2').trim();
  return v ? v : undefined;
}

/** The source without its front matter, the block's text, and the lines it took. */
export function splitFrontMatter(source: string): { body: string; block: string | undefined; lines: number } {
  const body = source.replace(/^\uFEFF/, '');
  const fm = FRONT_MATTER.exec(body);
  if (!fm) return { body, block: undefined, lines: 0 };
  return { body: body.slice(fm[0].length), block: fm[2] ?? '', lines: countLines(fm[0]) };
}

/** Newlines in a text: the index and the viewer number lines alike. */
export function countLines(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}
