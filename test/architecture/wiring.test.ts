import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/version.js';
import { importGraph } from './imports.js';

/**
 * Who wires a chart and who reads it. A chart gets its effects in a composition root, never in an
 * edge or a helper: docs/architecture.md names the files that call `.provide()`, and the sources
 * call it there and nowhere else. An edge reads what a machine exports (selectors, tags), never
 * its context. Both are found with the TypeScript parser (a comment or a string is not code).
 */
const SOURCES = [...importGraph(PROJECT_ROOT).keys()];

/** The lines of `file` where a property `name` is read (`x.name`), or called (`x.name(…)`) with `call`. */
function accesses(file: string, name: string, call: boolean): number[] {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const lines: number[] = [];
  const visit = (node: ts.Node) => {
    const access = call ? (ts.isCallExpression(node) ? node.expression : undefined) : node;
    if (access && ts.isPropertyAccessExpression(access) && access.name.text === name) lines.push(sf.getLineAndCharacterOfPosition(access.name.getStart(sf)).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return lines;
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
    const callers = SOURCES.filter((f) => accesses(f, 'provide', true).length > 0).sort();
    expect(callers.length).toBeGreaterThan(5);
    expect(callers).toEqual(documentedRoots());
  });
});

describe('edges', () => {
  it('transports/ and web/ never read a snapshot\'s context: they use what the machine exports', () => {
    const edges = SOURCES.filter((f) => /^(transports|web)\//.test(f));
    expect(edges.length).toBeGreaterThan(20);
    const reads = edges.flatMap((f) => accesses(f, 'context', false).map((line) => `${f}:${line}`));
    expect(reads).toEqual([]);
  });
});
