import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/version.js';
import { importGraph } from './imports.js';

/**
 * A chart gets its effects in a composition root, never in an edge or a helper: docs/architecture.md
 * names the files that call `.provide()`, and the sources call it there and nowhere else. Calls are
 * found with the TypeScript parser (a `.provide()` in a comment or a string is not one).
 */
function provideCalls(file: string): number {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  let n = 0;
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'provide') n++;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return n;
}

/** The backticked files of the paragraph of docs/architecture.md that opens with « `.provide()` is called only ». */
function documentedRoots(): string[] {
  const page = readFileSync(join(PROJECT_ROOT, 'docs/architecture.md'), 'utf8');
  const paragraph = page.split(/\n\s*\n/).find((p) => p.trimStart().startsWith('`.provide()` is called only'));
  if (!paragraph) throw new Error('docs/architecture.md has no paragraph opening with « `.provide()` is called only »');
  return [...paragraph.matchAll(/`([\w/]+\.ts)`/g)].map((m) => m[1]!).sort();
}

describe('composition roots', () => {
  it('.provide() is called only in the files docs/architecture.md lists', () => {
    const callers = [...importGraph(PROJECT_ROOT).keys()].filter((f) => provideCalls(f) > 0).sort();
    expect(callers.length).toBeGreaterThan(5);
    expect(callers).toEqual(documentedRoots());
  });
});
