/**
 * The top entries of a V8 CPU profile (`node --cpu-prof`), by self time, as a Markdown table:
 * how bench/README.md publishes the profiles of issue 17.
 *
 *   npx tsx bench/support/profile-top.ts <file.cpuprofile>… [--top 25] [--by function|file]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' }, by: { type: 'string', default: 'function' } } });
const self = new Map<string, number>();
let total = 0;
for (const file of positionals) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  p.samples.forEach((id, i) => {
    const n = byId.get(id)!;
    const dt = p.timeDeltas[i] ?? 0;
    const url = n.callFrame.url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*\/(wt\/i\d+\w*|main)\//, '');
    const key = values.by === 'file' ? url || `(${n.callFrame.functionName})` : `${n.callFrame.functionName || '(anonymous)'} ${url ? `${url}:${n.callFrame.lineNumber + 1}` : ''}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
console.log(`| self % | self ms | ${values.by} |`);
console.log('| ---: | ---: | --- |');
for (const [k, us] of rows) console.log(`| ${((us / total) * 100).toFixed(1)} | ${Math.round(us / 1000)} | \`${k}\` |`);
console.log(`\ntotal sampled: ${Math.round(total / 1000)} ms over ${positionals.length} profile(s)`);
