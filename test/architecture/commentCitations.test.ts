import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/version.js';
import { headings, hasAnchor } from '../support/markdownHeadings.js';

/**
 * What the comments of the sources cite must exist: a reader follows a file path or a page's
 * § section to learn why the code is as it is, and a file renamed or a section retitled leaves
 * them at a dead end. Comments say why, not when: no issue numbers, no named rounds of work.
 * Comments are read with the TypeScript scanner, so a path inside a string is not one.
 */
const DIRS = ['core', 'prompts', 'machines', 'transports', 'web', 'actors', 'cli', 'scripts', 'test', 'bench'];
/** Data sets, fixtures, third-party files and the dated journals, not the project's prose. */
const SKIP = /(^|\/)(node_modules|fixtures|eval|vendor)(\/|$)|^bench\/journal(\/|$)/;

function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const rel = relative(PROJECT_ROOT, path);
      if (SKIP.test(rel)) continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
    }
  };
  for (const d of DIRS) walk(join(PROJECT_ROOT, d));
  return out.sort();
}

/** Every comment of a file, its `*` and `//` margins removed and its lines joined. */
function comments(file: string): string[] {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const out: string[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      const body = scanner.getTokenText().replace(/^\/\*\*?|\*\/$/g, '').replace(/^\/\/\/?/, '');
      out.push(body.split('\n').map((l) => l.replace(/^\s*(\*|\/\/)?\s?/, '')).join(' '));
    }
  }
  return out;
}

const FILES = sources();
const COMMENTS = new Map(FILES.map((f) => [f, comments(f)]));

/** A repository path as comments write it: from the root or relative (`./`, `../`), a file or a folder. */
const PATH = /(?<![\w./@-])((?:\.\.?\/)*(?:core|prompts|machines|transports|web|actors|cli|scripts|test|bench|docs|deploy|bin)\/[\w./-]*\w)(?![\w*])/g;
/** A Markdown page (a bare name is under docs/) followed by `§ Heading` or by `#anchor`. */
const SECTION = /((?:[\w-]+\/)*[\w-]+\.md)(?:\s*§\s*([^(),;:\n—]+)|#([\w-]+))/g;

/** Relative paths from the citing file, or from the root as a command line writes them (`node ./bench/…`). */
function exists(from: string, cited: string): boolean {
  const paths = cited.startsWith('.') ? [join(dirname(join(PROJECT_ROOT, from)), cited), join(PROJECT_ROOT, cited)] : [join(PROJECT_ROOT, cited)];
  return paths.some((p) => existsSync(p) || (p.endsWith('.js') && existsSync(`${p.slice(0, -3)}.ts`)));
}

describe('source comments', () => {
  it('cite repository paths that exist', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const [file, list] of COMMENTS) {
      for (const text of list) {
        for (const m of text.matchAll(PATH)) {
          const cited = m[1]!.replace(/\.+$/, '');
          checked++;
          if (!exists(file, cited)) missing.push(`${file}: ${cited}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
    expect(missing).toEqual([]);
  });

  it('cite Markdown sections and anchors that exist', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const [file, list] of COMMENTS) {
      for (const text of list) {
        for (const m of text.matchAll(SECTION)) {
          const page = m[1]!.includes('/') ? join(PROJECT_ROOT, m[1]!) : join(PROJECT_ROOT, 'docs', m[1]!);
          if (!existsSync(page)) continue; // the path test names it
          checked++;
          const section = m[2]?.trim().replace(/[.`'"]+$/, '');
          const found = section !== undefined ? headings(page).some((h) => h.startsWith(section)) : hasAnchor(page, m[3]!);
          if (!found) missing.push(`${file}: ${m[0].trim()}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(30);
    expect(missing).toEqual([]);
  });

  it('say why, not when: no "issue N", no "wave"', () => {
    // Case-sensitive: a RIFF/WAVE header or a product named Wave is not history.
    const history = /\b[Ii]ssue #?\d+|\bwaves?\b/;
    const found = [...COMMENTS].flatMap(([file, list]) => list.filter((c) => history.test(c)).map((c) => `${file}: ${history.exec(c)![0]}`));
    expect(found).toEqual([]);
  });
});
