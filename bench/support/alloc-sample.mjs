/**
 * Preload for the benchmarks: V8's sampling heap profiler over a time window, every
 * allocation counted, including the objects garbage-collected before the end (what a CPU profile
 * shows only as "(garbage collector)"). One file per thread: ALLOC_OUT-<threadId>.json.
 *
 *   ALLOC_FROM_MS=7000 ALLOC_TO_MS=12000 ALLOC_OUT=/tmp/alloc \
 *     node --import ./bench/support/alloc-sample.mjs --import tsx bench/t2-sessions.ts 200 12
 *   npx tsx bench/support/alloc-top.ts /tmp/alloc-0.json --chunks <chunks in the window>
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { threadId } from 'node:worker_threads';

const from = Number(process.env.ALLOC_FROM_MS ?? 7000);
const to = Number(process.env.ALLOC_TO_MS ?? 12000);
const out = `${process.env.ALLOC_OUT ?? 'alloc'}-${threadId}.json`;
const session = new Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (err, r) => (err ? reject(err) : resolve(r))));

setTimeout(() => {
  void post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }).then(() => {
    setTimeout(() => {
      void post('HeapProfiler.stopSampling').then(({ profile }) => writeFileSync(out, JSON.stringify(profile)));
    }, to - from).unref();
  });
}, from).unref();
