import { posix } from 'node:path';

/**
 * Links between corpus pages, as the source sites wrote them, resolved to corpus files. Doc sets
 * are often flattened when copied (`specification/2025-06-18/basic/transports.mdx` →
 * `mcp/spec_basic_transports.mdx`, `obligations/evaluation-conformite/` →
 * `rgaa/obligations_evaluation-conformite.md`), so a site link names a page by its path segments:
 * a file matches when its name, split on `_`, ends like the link (a trailing `index` optional) and
 * its first part starts one of the link's segments (`spec` ⊂ `specification`, version segments
 * skipped). Relative links (`./server-concepts`) are read against the current file's own site path.
 */
export type LinkResolver = (href: string, fromPath: string) => string | undefined;

const DOC_EXT = /\.(md|mdx|markdown|txt|json)$/i;
const VERSION = /^(?:\d{4}-\d{2}-\d{2}|v?\d+(?:\.\d+)*)$/;

interface Candidate {
  path: string;
  folder: string;
  parts: string[];
}

function partsOf(path: string): Candidate {
  const folder = posix.dirname(path);
  const base = posix.basename(path).replace(DOC_EXT, '').toLowerCase();
  const parts = base.split('_');
  if (parts.length > 1 && parts[parts.length - 1] === 'index') parts.pop();
  return { path, folder, parts };
}

function matches(c: Candidate, segments: string[]): boolean {
  const [head, ...rest] = c.parts;
  if (!head || segments.length < c.parts.length) return false;
  const tail = segments.slice(segments.length - rest.length);
  if (rest.some((p, i) => p !== tail[i])) return false;
  // What precedes the name: its first part, and otherwise only version segments (2025-06-18, v2).
  const before = segments.slice(0, segments.length - rest.length);
  const isHead = (s: string): boolean => s === head || (head.length >= 3 && s.startsWith(head));
  return before.some(isHead) && before.every((s) => isHead(s) || VERSION.test(s));
}

export function createLinkResolver(paths: string[]): LinkResolver {
  const candidates = paths.map(partsOf);
  return (href, fromPath) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#') || href.startsWith('//')) return undefined;
    const [target = '', hash] = href.split('#', 2);
    if (!target) return undefined;
    const from = partsOf(fromPath);
    let segments: string[];
    if (target.startsWith('/')) {
      segments = target.toLowerCase().split('/').filter(Boolean);
    } else {
      // A plain relative file link first (a sibling .md in the corpus).
      const direct = posix.normalize(posix.join(posix.dirname(fromPath), target));
      if (!direct.startsWith('..') && paths.includes(direct)) return withHash(direct, hash);
      const site = posix.normalize(posix.join(`/${from.parts.slice(0, -1).join('/')}`, target));
      segments = site.toLowerCase().split('/').filter(Boolean);
    }
    segments = segments.map((s) => s.replace(DOC_EXT, ''));
    // `…/basic/index` is the page `…/basic`.
    if (segments.length > 1 && segments[segments.length - 1] === 'index') segments.pop();
    if (segments.length === 0) return undefined;
    // Pages of the same doc set first; the longest (most specific) name wins.
    const found = candidates
      .filter((c) => matches(c, segments))
      .sort((a, b) => Number(b.folder === from.folder) - Number(a.folder === from.folder) || b.parts.length - a.parts.length)[0];
    return found ? withHash(found.path, hash) : undefined;
  };
}

function withHash(path: string, hash: string | undefined): string {
  return hash ? `${path}#${hash}` : path;
}
