import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * Every import of the sources, read with the TypeScript parser: static imports and re-exports
 * (type-only ones marked), dynamic `import('…')` with a literal path, and `import('…')` types.
 */
export interface ImportEdge {
  /** Importing file, relative to the repository root (`machines/skull.ts`). */
  from: string;
  /** Specifier as written. */
  specifier: string;
  /** Resolved file relative to the root, or the package / builtin name. */
  target: string;
  kind: 'file' | 'builtin' | 'package';
  typeOnly: boolean;
  dynamic: boolean;
  /** Value names imported (`*` for a namespace or default import, or a dynamic one). */
  names: string[];
}

export const SOURCE_DIRS = ['machines', 'actors', 'transports', 'prompts', 'core', 'web', 'cli'];

function sourceFiles(root: string, dirs = SOURCE_DIRS): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (name === 'node_modules' || name === 'static') continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.ts$/.test(name) && !/\.d\.ts$/.test(name) && !/\.test\.ts$/.test(name)) out.push(relative(root, path));
    }
  };
  for (const d of dirs) if (existsSync(join(root, d))) walk(join(root, d));
  return out.sort();
}

const builtins = new Set(builtinModules);

function resolveFile(root: string, from: string, specifier: string): string {
  const base = resolve(root, dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate);
  }
  return relative(root, base);
}

function importsOf(root: string, file: string): ImportEdge[] {
  const text = readFileSync(join(root, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean, dynamic: boolean, names: string[] = ['*']) => {
    const bare = specifier.replace(/^node:/, '');
    if (specifier.startsWith('.')) edges.push({ from: file, specifier, target: resolveFile(root, file, specifier), kind: 'file', typeOnly, dynamic, names });
    else if (specifier.startsWith('node:') || builtins.has(bare.split('/')[0]!)) edges.push({ from: file, specifier, target: `node:${bare}`, kind: 'builtin', typeOnly, dynamic, names });
    else {
      const parts = specifier.split('/');
      const pkg = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
      edges.push({ from: file, specifier, target: pkg, kind: 'package', typeOnly, dynamic, names });
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly = Boolean(
        clause &&
          (clause.isTypeOnly ||
            (!clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly))),
      );
      const names: string[] = [];
      if (clause && !clause.isTypeOnly) {
        if (clause.name) names.push('*');
        if (clause.namedBindings && ts.isNamespaceImport(clause.namedBindings)) names.push('*');
        if (clause.namedBindings && ts.isNamedImports(clause.namedBindings)) for (const el of clause.namedBindings.elements) if (!el.isTypeOnly) names.push((el.propertyName ?? el.name).text);
      }
      add(node.moduleSpecifier.text, typeOnly, false, clause ? names : ['*']);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = node.isTypeOnly || Boolean(node.exportClause && ts.isNamedExports(node.exportClause) && node.exportClause.elements.every((e) => e.isTypeOnly));
      add(node.moduleSpecifier.text, typeOnly, false);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg))) add(arg.text, false, true);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, true, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

export function importGraph(root: string, dirs = SOURCE_DIRS): Map<string, ImportEdge[]> {
  const graph = new Map<string, ImportEdge[]>();
  for (const f of sourceFiles(root, dirs)) graph.set(f, importsOf(root, f));
  return graph;
}

/** Everything a file loads at run time: value imports followed transitively (type-only ones are erased). */
export function runtimeClosure(graph: Map<string, ImportEdge[]>, start: string, followDynamic = false): Map<string, string[]> {
  // target → the chain that reaches it
  const seen = new Map<string, string[]>([[start, [start]]]);
  const queue = [start];
  while (queue.length) {
    const file = queue.shift()!;
    for (const e of graph.get(file) ?? []) {
      if (e.typeOnly || (e.dynamic && !followDynamic) || seen.has(e.target)) continue;
      seen.set(e.target, [...seen.get(file)!, e.target]);
      if (e.kind === 'file') queue.push(e.target);
    }
  }
  return seen;
}
