import { fold } from './textFold.js';

/**
 * Heading anchors, shared by the retrieval index (source links) and the /docs viewer (heading ids),
 * so a citation's `#anchor` always lands on the heading the viewer rendered.
 *
 * Rule (GitHub-like, ASCII): fold diacritics, lower case, drop Markdown emphasis/code markers and
 * punctuation, spaces and runs of `-` become one `-`, trim `-`. Empty → "section". Within one
 * document a repeated slug gets `-1`, `-2`… in order of appearance (use `createSlugger()` per document).
 */
export function slugify(heading: string): string {
  const s = fold(heading)
    .replace(/<[^>]*>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_~]/g, '')
    .replace(/[^a-z0-9\s-]/g, ' ')
    .trim()
    .replace(/[\s-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s || 'section';
}

/** A per-document slugger that keeps anchors unique, as the viewer must do in the same order. */
export function createSlugger(): (heading: string) => string {
  const used = new Map<string, number>();
  return (heading: string) => {
    const base = slugify(heading);
    const n = used.get(base);
    if (n === undefined) {
      used.set(base, 0);
      return base;
    }
    let next = n + 1;
    while (used.has(`${base}-${next}`)) next++;
    used.set(base, next);
    used.set(`${base}-${next}`, 0);
    return `${base}-${next}`;
  };
}
