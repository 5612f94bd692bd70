import { readFileSync } from 'node:fs';
import { slugify } from '../../machines/docAnchors.js';

/** Headings of a Markdown page, outside fenced code. */
export function headings(page: string): string[] {
  let fenced = false;
  const out: string[] = [];
  for (const line of readFileSync(page, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (m) out.push(m[1]!);
  }
  return out;
}

/** GitHub's anchors (where the pages are also read): lower case, punctuation but `-` and `_` dropped. */
const githubSlug = (heading: string): string => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');

/** Whether `#anchor` lands on a heading of `page`: the /docs viewer's anchor or GitHub's. */
export function hasAnchor(page: string, anchor: string): boolean {
  return headings(page).some((h) => slugify(h) === anchor || githubSlug(h) === anchor);
}
