/**
 * The allocation sites of a sampling heap profile (bench/support/alloc-sample.mjs), by bytes
 * allocated, as a Markdown table; with `--chunks N` (candidate chunks in the window), bytes per chunk.
 *
 *   npx tsx bench/support/alloc-top.ts FILE.json [--top 20] [--chunks N]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Node { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: Node[] }

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '20' }, chunks: { type: 'string' } } });
const bySite = new Map<string, number>();
let total = 0;
const walk = (n: Node): void => {
  const url = n.callFrame.url.replace(/^file:\/\//, '').replace(/\?tsx-namespace=[\w-]+$/, '').replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*\/(wt\/[\w-]+|main)\//, '');
  const key = `${n.callFrame.functionName || '(anonymous)'} ${url ? `${url}:${n.callFrame.lineNumber + 1}` : ''}`.trim();
  bySite.set(key, (bySite.get(key) ?? 0) + n.selfSize);
  total += n.selfSize;
  for (const c of n.children) walk(c);
};
for (const f of positionals) walk((JSON.parse(readFileSync(f, 'utf8')) as { head: Node }).head);
const chunks = values.chunks ? Number(values.chunks) : undefined;
console.log(`| MB | ${chunks ? 'bytes per chunk | ' : ''}allocated by |`);
console.log(`| ---: | ${chunks ? '---: | ' : ''}--- |`);
for (const [k, b] of [...bySite].sort((a, c) => c[1] - a[1]).slice(0, Number(values.top))) {
  console.log(`| ${(b / 1e6).toFixed(1)} | ${chunks ? `${Math.round(b / chunks)} | ` : ''}\`${k}\` |`);
}
console.log(`\ntotal: ${(total / 1e6).toFixed(1)} MB${chunks ? `, ${Math.round(total / chunks)} bytes per chunk` : ''}`);
