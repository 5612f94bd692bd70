/**
 * Where the up-latency tail of bench/t2-sessions.ts is: the 20 ms ticks (of the load generator's
 * clock) holding chunks at or above the run's p99, with how many, their worst and mean latency.
 * Gemini's replies come every 3 s of a session's audio, so a tick's place in that cycle is printed
 * too: a burst of replies shows as the ticks just after 0, 3, 6… s.
 *
 *   T2_LATENCY_DUMP=/tmp/up.json npx tsx bench/t2-sessions.ts 200 15 [--baseline]
 *   npx tsx bench/support/t2-latency-ticks.ts /tmp/up.json [--top 15]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '15' } } });
const file = positionals[0];
if (!file) throw new Error('usage: t2-latency-ticks.ts DUMP.json [--top N] (the file T2_LATENCY_DUMP named)');
const dump = z.object({ upSentAtMs: z.array(z.number()), upMs: z.array(z.number()) }).parse(JSON.parse(readFileSync(file, 'utf8')));
const { upSentAtMs, upMs } = dump;
if (upMs.length === 0) throw new Error(`${file}: no chunk measured`);

const sorted = [...upMs].sort((a, b) => a - b);
const p99 = sorted[Math.floor(sorted.length * 0.99)]!;
const TICK_MS = 20;
const ticks = new Map<number, number[]>();
upMs.forEach((ms, i) => {
  const k = Math.round(upSentAtMs[i]! / TICK_MS);
  const list = ticks.get(k) ?? [];
  list.push(ms);
  ticks.set(k, list);
});
const rows = [...ticks]
  .map(([k, list]) => ({ atS: (k * TICK_MS) / 1000, inReplyCycleMs: ((k * TICK_MS) % 3000), overP99: list.filter((x) => x >= p99).length, maxMs: Math.round(Math.max(...list)), meanMs: Math.round(list.reduce((s, x) => s + x, 0) / list.length) }))
  .filter((r) => r.overP99 > 0);
const over = rows.reduce((s, r) => s + r.overP99, 0);
console.log(`p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${upMs.length} chunks; ${over} chunks at or above the p99, in ${rows.length} of ${ticks.size} ticks`);
console.table(rows.sort((a, b) => b.overP99 - a.overP99).slice(0, Number(values.top)).sort((a, b) => a.atS - b.atS));
