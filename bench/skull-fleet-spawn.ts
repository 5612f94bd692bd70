/**
 * What one spawn costs as the root holds more device actors (no MQTT): the `skull` chart started
 * through the Runtime (the root actor) 1,000 at a time up to `total`, then stopped likewise.
 * Shows the O(live actors) part of a spawn (XState copies the root's children on each spawn, and
 * the root copies its conversation record).
 *
 *   npx tsx bench/skull-fleet-spawn.ts [total=10000]
 */
import { Runtime } from '../core/runtime.js';
import { skullMachine } from '../machines/skull.js';
import { skullSettings } from '../actors/skull/settings.js';
import { testConfig } from '../test/skull/support.js';

const TOTAL = Number(process.argv[2] ?? 10_000);
const runtime = new Runtime();
const settings = skullSettings(testConfig());
const rows: Array<{ live: number; spawn_ms: number; stop_ms?: number }> = [];
for (let n = 0; n < TOTAL; n += 1000) {
  const t0 = performance.now();
  for (let i = n; i < n + 1000; i++) runtime.start('skull', `skull:bench/d${i}`, skullMachine, { deviceId: `d${i}`, settings, defaultPrompt: 'x' });
  rows.push({ live: n + 1000, spawn_ms: Math.round(((performance.now() - t0) / 1000) * 1000) / 1000 });
}
for (let n = TOTAL; n > 0; n -= 1000) {
  const t0 = performance.now();
  for (let i = n - 1000; i < n; i++) runtime.stop(`skull:bench/d${i}`);
  const row = rows.find((r) => r.live === n)!;
  row.stop_ms = Math.round(((performance.now() - t0) / 1000) * 1000) / 1000;
}
console.log(JSON.stringify({ bench: 'skull-fleet-spawn', per_spawn_and_stop_ms_by_live_actors: rows }));
runtime.shutdown();
