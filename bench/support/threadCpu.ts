import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of each thread of this process (Linux: /proc/self/task/<tid>/stat, utime + stime, in
 * clock ticks of 10 ms), so a benchmark can say which thread the process CPU went to: the event
 * loop (tid = pid), a worker thread, V8's helper threads (garbage collection, compilation), libuv's
 * pool. Elsewhere, an empty map.
 */
export function threadTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return ticks;
  }
  for (const tid of tids) {
    try {
      // Fields after the command name (which may hold spaces): state is 3rd, utime 14th, stime 15th.
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks.set(Number(tid), Number(fields[11]) + Number(fields[12]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return ticks;
}

/** CPU µs per unit of work between two readings: the main thread, then the others, busiest first. */
export function threadCpuPer(before: Map<number, number>, after: Map<number, number>, units: number): { main: number; others: number[] } {
  const us = (t: number): number => Math.round(((t * 10_000) / Math.max(1, units)) * 10) / 10;
  const others: number[] = [];
  let main = 0;
  for (const [tid, t] of after) {
    const d = t - (before.get(tid) ?? 0);
    if (tid === process.pid) main = us(d);
    else if (d > 0) others.push(us(d));
  }
  return { main, others: others.sort((a, b) => b - a) };
}
