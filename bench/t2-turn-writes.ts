/**
 * Cost of writing T2 turns as they happen (issue 13: one small SQLite write per final turn, batched
 * only if that cost shows): `SessionStore.appendTurn` on a real WAL file, 50 open sessions × 100
 * turns each, interleaved as concurrent dialogues would be. Prints the per-write latency.
 *
 *   npx tsx bench/t2-turn-writes.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openStore } from '../core/store/db.js';
import { SessionStore } from '../actors/t2/sessionStore.js';
import { t2Migrations } from '../actors/t2/subjects.js';

const SESSIONS = 50;
const TURNS = 100;
const TEXT = 'Bonjour, je voudrais savoir quels sont les horaires du club le week-end, s’il vous plaît.';

const dir = mkdtempSync(join(tmpdir(), 'palabre-bench-turns-'));
try {
  const db = openStore({ path: join(dir, 'palabre.db') });
  migrate(db, t2Migrations);
  const store = new SessionStore(db);
  for (let i = 0; i < SESSIONS; i++) store.open({ id: `s${i}`, candidateId: `c${i}`, sujetId: 'club-de-sport', mode: 'audio', audioPath: null });
  const times: number[] = [];
  for (let t = 0; t < TURNS; t++) {
    for (let i = 0; i < SESSIONS; i++) {
      const at = performance.now();
      store.appendTurn(`s${i}`, { speaker: t % 2 === 0 ? 'candidate' : 'interlocutor', text: TEXT, atMs: t * 4000, final: true });
      times.push(performance.now() - at);
    }
  }
  db.close();
  times.sort((a, b) => a - b);
  const q = (p: number): string => times[Math.floor(p * (times.length - 1))]!.toFixed(3);
  console.log(`appendTurn on a WAL file: ${times.length} writes (${SESSIONS} sessions × ${TURNS} turns) — p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms (the max is occasional, most likely a WAL checkpoint)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
