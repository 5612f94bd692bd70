/**
 * Mutation check of the model tests: one-token changes to a production chart, one at a time, each
 * followed by that machine's model test. A mutant the test still passes "survived": either the
 * oracles miss a behaviour, or the change is not observable (then say why in the report).
 *
 *   npx tsx test/model/mutate.ts                 # every machine below
 *   npx tsx test/model/mutate.ts chat skull      # some of them
 *   npx tsx test/model/mutate.ts skull --list    # print the mutants without running them
 *   npx tsx test/model/mutate.ts t2live --only=op:248   # the mutants whose id contains this
 *
 * Mutants are made in a copy of the repository (tracked files, node_modules linked) under the OS
 * temp dir, so the working tree is never touched. Operators:
 * - guard: a guard of `setup({ guards })` inverted (`not(…)` for and/or/stateIn, `!(…)` otherwise);
 * - op: one relational or logical operator swapped (`<`↔`<=`, `>`↔`>=`, `===`↔`!==`, `&&`↔`||`);
 * - drop: one named action left out of an `actions`/`entry` list (or a lone `actions: 'x'`).
 * Not run in CI (minutes of CPU); the figures and this command go in the report.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Mutant {
  id: string;
  kind: 'guard' | 'op' | 'drop';
  line: number;
  description: string;
  source: string;
}

/** Each machine file and the model test(s) that must kill its mutants. */
export const TARGETS: Record<string, { file: string; tests: string[] }> = {
  chat: { file: 'machines/chat.ts', tests: ['test/docs/chat.model.test.ts'] },
  correction: { file: 'machines/correction.ts', tests: ['test/corrections/correction.model.test.ts'] },
  skull: { file: 'machines/skull.ts', tests: ['test/skull/skull.model.test.ts'] },
  t2live: { file: 'machines/t2live.ts', tests: ['test/t2/t2live.model.test.ts'] },
  t2Instance: { file: 'machines/t2Instance.ts', tests: ['test/t2/t2Instance.model.test.ts'] },
  llmCall: { file: 'machines/llmCall.ts', tests: ['test/model/llmCall.model.test.ts'] },
  llmPolicy: { file: 'machines/llmPolicy.ts', tests: ['test/model/llmCall.model.test.ts', 'test/skull/skull.model.test.ts'] },
  breaker: { file: 'machines/breaker.ts', tests: ['test/model/breaker.model.test.ts'] },
  root: { file: 'core/rootMachine.ts', tests: ['test/model/root.model.test.ts'] },
};

const NOT_HELPER = '\nfunction __mutantNot(g: any): any {\n  return (...a: any[]) => !g(...a);\n}\n';

/** The `guards: { … }` block of `setup()`: [start, end) offsets of each guard's value. */
function guardValues(src: string): Array<{ name: string; start: number; end: number }> {
  const open = src.search(/\n {2}guards: \{\n/);
  if (open < 0) return [];
  const bodyStart = src.indexOf('{', open) + 1;
  // The block ends at the first line that closes it at its own indentation.
  const close = src.indexOf('\n  },', bodyStart);
  const body = src.slice(bodyStart, close);
  const out: Array<{ name: string; start: number; end: number }> = [];
  const re = /\n {4}(\w+): /g;
  const heads: Array<{ name: string; at: number; valueAt: number }> = [];
  for (let m = re.exec(body); m; m = re.exec(body)) heads.push({ name: m[1]!, at: m.index, valueAt: m.index + m[0].length });
  heads.forEach((h, i) => {
    const stop = i + 1 < heads.length ? heads[i + 1]!.at : body.length;
    // Up to the next guard, without the doc comment of that next guard.
    let value = body.slice(h.valueAt, stop).replace(/(\s*(\/\*[\s\S]*?\*\/|\/\/[^\n]*))*\s*$/, '');
    if (value.endsWith(',')) value = value.slice(0, -1);
    out.push({ name: h.name, start: bodyStart + h.valueAt, end: bodyStart + h.valueAt + value.length });
  });
  return out;
}

function lineOf(src: string, offset: number): number {
  return src.slice(0, offset).split('\n').length;
}

/** Offsets that are code (not in comments or string literals), after the imports. */
function codeMask(src: string): boolean[] {
  const mask = new Array<boolean>(src.length).fill(false);
  let i = 0;
  let mode: 'code' | 'line' | 'block' | 'regex' | "'" | '"' | '`' = 'code';
  let inClass = false;
  let prev = '';
  while (i < src.length) {
    const c = src[i]!;
    const n = src[i + 1];
    if (mode === 'code') {
      if (c === '/' && n === '/') mode = 'line';
      else if (c === '/' && n === '*') mode = 'block';
      else if (c === "'" || c === '"' || c === '`') mode = c;
      // A regex literal starts where an expression can (after an operator or an opening bracket).
      else if (c === '/' && /[(,=:[!&|?{};]/.test(prev)) mode = 'regex';
      else mask[i] = true;
      if (!/\s/.test(c)) prev = c;
    } else if (mode === 'line') {
      if (c === '\n') mode = 'code';
    } else if (mode === 'block') {
      if (c === '*' && n === '/') {
        mode = 'code';
        i++;
      }
    } else if (mode === 'regex') {
      if (c === '\\') i++;
      else if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) {
        mode = 'code';
        prev = 'x';
      }
    } else if (c === '\\') i++;
    else if (c === mode) {
      mode = 'code';
      prev = 'x';
    }
    i++;
  }
  return mask;
}

export function mutants(src: string): Mutant[] {
  const out: Mutant[] = [];
  const importsEnd = src.search(/\n(?!import|\s|\}|type)[^\n]*\n/);
  // Guards inverted.
  for (const g of guardValues(src)) {
    const value = src.slice(g.start, g.end);
    const higherOrder = /^(and|or|not|stateIn)\(/.test(value);
    const wrapped = higherOrder ? `not(${value})` : `__mutantNot(${value})`;
    let next = src.slice(0, g.start) + wrapped + src.slice(g.end);
    if (higherOrder && !/import \{[^}]*\bnot\b[^}]*\} from 'xstate'/.test(next)) next = next.replace(/import \{/, 'import { not,');
    if (!higherOrder) next += NOT_HELPER;
    out.push({ id: `guard:${g.name}`, kind: 'guard', line: lineOf(src, g.start), description: `guard ${g.name} inverted`, source: next });
  }
  // Operators swapped, in code only.
  const mask = codeMask(src);
  const swaps: Array<[RegExp, (m: string) => string]> = [
    [/ <= /g, () => ' < '],
    [/ >= /g, () => ' > '],
    [/ < /g, () => ' <= '],
    [/ > /g, () => ' >= '],
    [/ === /g, () => ' !== '],
    [/ !== /g, () => ' === '],
    [/ && /g, () => ' || '],
    [/ \|\| /g, () => ' && '],
  ];
  for (const [re, to] of swaps) {
    for (let m = re.exec(src); m; m = re.exec(src)) {
      if (m.index < importsEnd || !mask[m.index + 1]) continue;
      const line = lineOf(src, m.index);
      out.push({
        id: `op:${line}:${m[0].trim()}`,
        kind: 'op',
        line,
        description: `line ${line}: \`${m[0].trim()}\` → \`${to(m[0]).trim()}\` in ${src.split('\n')[line - 1]!.trim().slice(0, 90)}`,
        source: src.slice(0, m.index) + to(m[0]) + src.slice(m.index + m[0].length),
      });
    }
  }
  // Actions dropped: each element of an `actions`/`entry`/`exit` list, or a lone action.
  const heads = /\b(actions|entry|exit): /g;
  for (let m = heads.exec(src); m; m = heads.exec(src)) {
    // `actions: {…}` of setup() is the implementations, not a list to drop from.
    if (!mask[m.index] || src.slice(m.index - 3, m.index) === '\n  ') continue;
    const start = m.index + m[0].length;
    const end = expressionEnd(src, start);
    const whole = src.slice(start, end);
    const line = lineOf(src, start);
    const elements = whole.startsWith('[') ? topLevelElements(src, start + 1, end - 1) : [{ start, end }];
    for (const el of elements) {
      const text = src.slice(el.start, el.end);
      const label = text.replace(/\s+/g, ' ').slice(0, 60);
      let next: string;
      if (!whole.startsWith('[')) next = src.slice(0, start) + '[]' + src.slice(end);
      else {
        // Remove the element and one separating comma.
        const after = src.slice(el.end).match(/^\s*,\s*/);
        next = after ? src.slice(0, el.start) + src.slice(el.end + after[0].length) : src.slice(0, el.start).replace(/,\s*$/, '') + src.slice(el.end);
      }
      out.push({ id: `drop:${line}:${label.slice(0, 30)}`, kind: 'drop', line, description: `line ${line}: ${m[1]} ${label} dropped`, source: next });
    }
  }
  return out;
}

const OPEN: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** End offset of the expression starting at `from`: the first top-level `,` or closing bracket. */
function expressionEnd(src: string, from: number): number {
  const mask = codeMask(src);
  const stack: string[] = [];
  for (let i = from; i < src.length; i++) {
    const c = src[i]!;
    if (!mask[i]) continue;
    if (OPEN[c]) stack.push(OPEN[c]!);
    else if (c === ')' || c === ']' || c === '}') {
      if (stack.length === 0) return trimEnd(src, from, i);
      stack.pop();
      if (stack.length === 0 && (src[from] === '[' || src[from] === '{') && i >= from) {
        // A bracketed value ends with its bracket (unless a call follows, e.g. `{…}.x`).
        if (!/^[.(]/.test(src.slice(i + 1))) return i + 1;
      }
    } else if (c === ',' && stack.length === 0) return trimEnd(src, from, i);
  }
  return src.length;
}

function trimEnd(src: string, from: number, to: number): number {
  let end = to;
  while (end > from && /\s/.test(src[end - 1]!)) end--;
  return end;
}

/** The top-level elements between `from` and `to` (inside an array literal). */
function topLevelElements(src: string, from: number, to: number): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  let i = from;
  while (i < to) {
    while (i < to && /[\s,]/.test(src[i]!)) i++;
    if (i >= to) break;
    const end = Math.min(expressionEnd(src, i), to);
    if (end <= i) break;
    out.push({ start: i, end });
    i = end;
  }
  return out;
}

function copyRepo(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-mutants-'));
  const files = spawnSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    try {
      cpSync(join(root, f), join(dir, f));
    } catch {
      // A tracked file deleted in the working tree.
    }
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

function runTests(dir: string, tests: string[]): { passed: boolean; invalid: boolean; ms: number } {
  const t0 = Date.now();
  const r = spawnSync(join(dir, 'node_modules', '.bin', 'vitest'), ['run', ...tests, '--reporter=dot', '--bail=1'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 240_000,
    env: { ...process.env, LOG_LEVEL: 'silent', MODEL_FAIL_FAST: '1' },
  });
  // A mutant that does not even load is not a kill: it is reported apart.
  const invalid = r.status !== 0 && /Transform failed|SyntaxError|ERROR: Expected|is not defined/.test(`${r.stdout}${r.stderr}`);
  return { passed: r.status === 0, invalid, ms: Date.now() - t0 };
}

async function main(argv: string[]): Promise<number> {
  const names = argv.filter((a) => !a.startsWith('--'));
  const only = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  const list = argv.includes('--list');
  const selected = names.length ? names : Object.keys(TARGETS);
  for (const n of selected) if (!TARGETS[n]) throw new Error(`unknown machine ${n}: one of ${Object.keys(TARGETS).join(', ')}`);
  const root = process.cwd();
  const dir = list ? '' : copyRepo(root);
  const summary: string[] = [];
  try {
    for (const name of selected) {
      const { file, tests } = TARGETS[name]!;
      const original = readFileSync(join(root, file), 'utf8');
      const all = mutants(original).filter((m) => !only || m.id.includes(only));
      if (list) {
        for (const m of all) console.log(`${name}  ${m.id}  ${m.description}`);
        continue;
      }
      const baseline = runTests(dir, tests);
      if (!baseline.passed) throw new Error(`${name}: the model test fails before any mutation`);
      const survived: Mutant[] = [];
      const invalid: Mutant[] = [];
      let killed = 0;
      for (const m of all) {
        writeFileSync(join(dir, file), m.source);
        const r = runTests(dir, tests);
        if (r.passed) survived.push(m);
        else if (r.invalid) invalid.push(m);
        else killed++;
        console.log(`${name}  ${r.passed ? 'SURVIVED' : r.invalid ? 'INVALID ' : 'killed  '}  ${m.description}  (${(r.ms / 1000).toFixed(1)} s)`);
      }
      writeFileSync(join(dir, file), original);
      const valid = all.length - invalid.length;
      const score = valid ? Math.round((killed / valid) * 1000) / 10 : 100;
      summary.push(
        `${name}: ${killed}/${valid} killed (${score} %)${invalid.length ? `, ${invalid.length} mutant(s) did not load (not counted)` : ''}${survived.length ? `; survived: ${survived.map((m) => m.id).join(', ')}` : ''}`,
      );
    }
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  if (summary.length) console.log(`\nMutation score of the model tests\n${summary.join('\n')}`);
  return 0;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) process.exitCode = await main(process.argv.slice(2));
