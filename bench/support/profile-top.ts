/**
 * The top entries of a V8 CPU profile (`node --cpu-prof`), by self time, as a Markdown table:
 * how the benchmark journal (bench/journal/) publishes profiles.
 *
 *   npx tsx bench/support/profile-top.ts <file.cpuprofile>… [--top 25] [--by function|file]
 *     [--during NAME [--window-of MAIN.cpuprofile]]
 *
 * `--during NAME` keeps only the samples between the first and the last one with NAME on the
 * stack (e.g. `sendAudio`: the streaming part of bench/t2-sessions.ts, without the start, the
 * connections and the stop). With `--window-of`, that window is found in MAIN's samples and
 * applied by time to each file (a worker thread's profile, cropped to the main thread's window).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, by: { type: 'string', default: 'function' }, during: { type: 'string' }, 'window-of': { type: 'string' } },
});

const load = (file: string): Profile => JSON.parse(readFileSync(file, 'utf8')) as Profile;

/** Absolute times (µs) of the first and last sample with `name` on the stack. */
function windowOf(p: Profile, name: string): [number, number] {
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const memo = new Map<number, boolean>();
  const onStack = (id: number): boolean => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const up = parent.get(id);
    const r = byId.get(id)!.callFrame.functionName === name || (up !== undefined && onStack(up));
    memo.set(id, r);
    return r;
  };
  let t = p.startTime;
  let from = Infinity;
  let to = -Infinity;
  p.samples.forEach((id, i) => {
    t += p.timeDeltas[i] ?? 0;
    if (onStack(id)) {
      from = Math.min(from, t);
      to = Math.max(to, t);
    }
  });
  if (from === Infinity) throw new Error(`no sample with ${name} on the stack`);
  return [from, to];
}

const fixed = values.during && values['window-of'] ? windowOf(load(values['window-of']), values.during) : undefined;
const self = new Map<string, number>();
let total = 0;
for (const file of positionals) {
  const p = load(file);
  const [from, to] = fixed ?? (values.during ? windowOf(p, values.during) : [-Infinity, Infinity]);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  let t = p.startTime;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    if (t <= from || t > to) return;
    const n = byId.get(id)!;
    const url = n.callFrame.url.replace(/^file:\/\//, '').replace(/\?tsx-namespace=[\w-]+$/, '').replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*\/(wt\/[\w-]+|main)\//, '');
    const key = values.by === 'file' ? url || `(${n.callFrame.functionName})` : `${n.callFrame.functionName || '(anonymous)'} ${url ? `${url}:${n.callFrame.lineNumber + 1}` : ''}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
console.log(`| self % | self ms | ${values.by} |`);
console.log('| ---: | ---: | --- |');
for (const [k, us] of rows) console.log(`| ${((us / total) * 100).toFixed(1)} | ${Math.round(us / 1000)} | \`${k}\` |`);
console.log(`\ntotal sampled: ${Math.round(total / 1000)} ms over ${positionals.length} profile(s)${values.during ? `, during ${values.during}` : ''}`);
