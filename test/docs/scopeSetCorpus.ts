import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EvalItem } from '../../bench/support/ragSets.js';

/**
 * The checks a blind scope set's labels get against the shared corpus before its single run
 * (test/docs/evalScope*.test.ts): answerable questions hold the evidence their note quotes, traps'
 * named things are still absent. Parse and grep only: no retrieval runs on the questions.
 */
export const PARTS = ['mcp', 'rgaa', 'rgpd'] as const;

// The shared corpus sits next to the repository (../shared/corpus from the main checkout,
// ../../shared/corpus from a worktree); CORPUS_DIR wins when set.
export const corpusCandidates = [process.env.CORPUS_DIR, '../shared/corpus', '../../shared/corpus'].filter((d): d is string => d !== undefined && d.trim() !== '');
export const corpus = corpusCandidates.map((d) => resolve(d)).find((d) => existsSync(d) && statSync(d).isDirectory());

/** Every file of the three parts, by corpus-relative path. */
export function corpusFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const part of PARTS) {
    for (const name of readdirSync(join(dir, part))) {
      const path = join(dir, part, name);
      if (statSync(path).isFile()) files.set(`${part}/${name}`, readFileSync(path, 'utf8'));
    }
  }
  return files;
}

/**
 * Label errors: a refusal (unrelated or trap) that names a relevant file or is not marked out of
 * scope, an answerable question without a file or marked out of scope, or naming a file of another part.
 */
export function labelErrors(items: readonly EvalItem[]): string[] {
  const refusal = (x: EvalItem): boolean => x.kind === 'unrelated' || x.kind === 'trap';
  return items.flatMap((x) => {
    if (refusal(x)) return x.relevant.length > 0 || x.out_of_scope !== true ? [`${x.id}: a refusal with a file or not out of scope`] : [];
    if (x.kind !== 'answerable') return [];
    if (x.relevant.length === 0 || x.out_of_scope === true) return [`${x.id}: answerable without a file or out of scope`];
    return x.relevant.filter((p) => !p.startsWith(`${x.part}/`)).map((p) => `${x.id}: ${p} is not in part ${x.part}`);
  });
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Answerable items whose note "evidence: /REGEX/ occurs in FILE" (case-insensitive) does not hold. */
export function missingEvidence(answerable: readonly EvalItem[], files: Map<string, string>): string[] {
  return answerable
    .filter((x) => {
      const m = /^evidence: \/(.+)\/ occurs in (.+)$/.exec(x.note ?? '');
      return m === null || m[2] !== x.relevant[0] || !new RegExp(m[1] as string, 'i').test(files.get(m[2] as string) ?? '');
    })
    .map((x) => x.id);
}

/**
 * Strings a trap's note says are absent ("… (checked absent from the corpus: a, b, part:c,
 * part:file-prefix:d)") but that the corpus holds: each is searched as a whole word,
 * case-insensitive unless written in capitals (or "Wave", "Canva"), over the whole corpus or, with
 * a "part:" prefix, over that part (or that part's files starting so).
 */
export function presentAbsences(traps: readonly EvalItem[], files: Map<string, string>): string[] {
  return traps.flatMap((x) => {
    const m = /\(checked absent from the corpus: (.+)\)$/.exec(x.note ?? '');
    if (m === null) return [`${x.id}: no absence list`];
    return (m[1] as string).split(', ').flatMap((entry) => {
      const bits = entry.split(':');
      const scoped = bits.length > 1 && (PARTS as readonly string[]).includes(bits[0] as string);
      const scope = !scoped ? '' : bits.length > 2 ? `${bits[0]}/${bits[1]}` : `${bits[0]}/`;
      const needle = scoped ? bits.slice(bits.length > 2 ? 2 : 1).join(':') : entry;
      const flags = needle === needle.toUpperCase() || needle === 'Wave' || needle === 'Canva' ? '' : 'i';
      const re = new RegExp(`(?<![A-Za-z0-9_])${escape(needle)}(?![A-Za-z0-9])`, flags);
      return [...files].filter(([path, text]) => path.startsWith(scope) && re.test(text)).map(([path]) => `${x.id}: "${needle}" in ${path}`);
    });
  });
}
