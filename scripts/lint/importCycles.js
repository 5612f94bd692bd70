import { readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * An ESLint rule that closes the gap `import-x/no-cycle` leaves by design: it skips type-only
 * imports, so two files tied by `import type` in one direction and a value import in the other
 * pass it. The layer order counts type-only imports, and so does this rule: it reports an import
 * that lies on a cycle only when that cycle needs a type-only import (a cycle of value imports
 * alone is `import-x/no-cycle`'s, reported once, there).
 *
 * The graph is read with the TypeScript parser (relative specifiers of static imports, re-exports,
 * `import()` calls and `import('…')` types), each file once per modification time.
 */

/** @typedef {{ target: string, typeOnly: boolean, line: number, column: number, specifier: string }} Edge */

/** @type {Map<string, { mtimeMs: number, edges: Edge[] }>} */
const cache = new Map();

/** The `.ts` file a relative specifier names (`./x.js` → `x.ts`), or null when it names no TypeScript source. */
function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, `${base}/index.ts`]) {
    if (!candidate.endsWith('.ts')) continue;
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this candidate
    }
  }
  return null;
}

/** @returns {Edge[]} */
export function importsOfText(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  /** @type {Edge[]} */
  const edges = [];
  const add = (node, literal, typeOnly) => {
    const target = resolveSpecifier(file, literal.text);
    if (!target) return;
    const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    edges.push({ target, typeOnly, line: line + 1, column: character, specifier: literal.text });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : null;
      const typeOnly = Boolean(c && (c.isTypeOnly || (!c.name && named && named.length > 0 && named.every((e) => e.isTypeOnly))));
      add(node, node.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : null;
      add(node, node.moduleSpecifier, node.isTypeOnly || Boolean(named && named.length > 0 && named.every((e) => e.isTypeOnly)));
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      add(node, node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node, node.argument.literal, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

/** Edges of a file on disk, read again only when it changed. */
function importsOfFile(file) {
  const { mtimeMs } = statSync(file);
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.edges;
  const edges = importsOfText(file, readFileSync(file, 'utf8'));
  cache.set(file, { mtimeMs, edges });
  return edges;
}

/** Shortest chain of imports from `start` back to `goal`, through value imports only when asked. */
function chainTo(start, goal, valueOnly, edgesOf) {
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const at = queue.shift();
    for (const e of edgesOf(at)) {
      if (valueOnly && e.typeOnly) continue;
      if (e.target === goal) {
        const chain = [goal, at];
        for (let p = prev.get(at); p; p = prev.get(p)) chain.push(p);
        return chain.reverse();
      }
      if (!prev.has(e.target)) {
        prev.set(e.target, at);
        queue.push(e.target);
      }
    }
  }
  return null;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noCycleThroughTypes = {
  meta: {
    type: 'problem',
    docs: { description: 'No import cycle, type-only imports included.' },
    schema: [],
    messages: {
      cycle: 'Import cycle through a type-only import: {{chain}}. Give the shared definitions their own module, below both.',
    },
  },
  create(context) {
    const file = context.physicalFilename;
    if (!file.endsWith('.ts')) return {};
    return {
      Program(program) {
        const own = importsOfText(file, context.sourceCode.text);
        // Within one run, each file's imports are read once (the file being linted: from its text).
        const seen = new Map([[file, own]]);
        const edgesOf = (f) => {
          let edges = seen.get(f);
          if (!edges) {
            try {
              edges = importsOfFile(f);
            } catch {
              edges = [];
            }
            seen.set(f, edges);
          }
          return edges;
        };
        const root = context.cwd;
        for (const e of own) {
          if (e.target === file) continue;
          if (!e.typeOnly && chainTo(e.target, file, true, edgesOf)) continue;
          const back = chainTo(e.target, file, false, edgesOf);
          if (!back) continue;
          const chain = [file, ...back].map((f) => relative(root, f)).join(' → ');
          context.report({ node: program, loc: { line: e.line, column: e.column }, messageId: 'cycle', data: { chain } });
        }
      },
    };
  },
};

export default { rules: { 'no-cycle-through-types': noCycleThroughTypes } };
