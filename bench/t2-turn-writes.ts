/**
 * Cost of writing T2 turns as they happen (one small write per final turn, to be batched
 * only if that cost shows): `SessionStore.appendTurn` on a real WAL file — or on Postgres when
 * DATABASE_URL is set (a throw-away database is created and dropped) — 50 open sessions × 100
 * turns each, interleaved as concurrent dialogues would be. Prints the per-write latency.
 *
 *   npx tsx bench/t2-turn-writes.ts
 *   DATABASE_URL=postgres://… npx tsx bench/t2-turn-writes.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore } from '../core/store/db.js';
import { PORTABLE_MIGRATIONS } from '../test/support/migrations.js';
import { postgresStore, sqliteStore } from '../core/store/sqlStore.js';
import { SessionStore } from '../actors/t2/sessionStore.js';

const SESSIONS = 50;
const TURNS = 100;
const TEXT = 'Bonjour, je voudrais savoir quels sont les horaires du club le week-end, s’il vous plaît.';

const dir = mkdtempSync(join(tmpdir(), 'palabre-bench-turns-'));
try {
  const db = openStore({ path: join(dir, 'palabre.db') });
  const base = process.env.DATABASE_URL;
  const pgName = `palabre_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (q: string): Promise<void> => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    await c.query(q);
    await c.end();
  };
  let url: string | undefined;
  if (base) {
    await admin(`CREATE DATABASE ${pgName}`);
    const u = new URL(base);
    u.pathname = `/${pgName}`;
    url = u.toString();
  }
  const engine = url ? await postgresStore({ url, migrations: PORTABLE_MIGRATIONS }) : sqliteStore(db, PORTABLE_MIGRATIONS);
  const store = new SessionStore(engine, 'bench');
  for (let i = 0; i < SESSIONS; i++) await store.open({ id: `s${i}`, candidateId: `c${i}`, sujetId: 'club-de-sport', mode: 'audio', audioPath: null });
  const times: number[] = [];
  for (let t = 0; t < TURNS; t++) {
    for (let i = 0; i < SESSIONS; i++) {
      const at = performance.now();
      await store.appendTurn(`s${i}`, { speaker: t % 2 === 0 ? 'candidate' : 'interlocutor', text: TEXT, atMs: t * 4000, final: true });
      times.push(performance.now() - at);
    }
  }
  await engine.close();
  db.close();
  if (url) await admin(`DROP DATABASE ${pgName} WITH (FORCE)`);
  times.sort((a, b) => a - b);
  const q = (p: number): string => times[Math.floor(p * (times.length - 1))]!.toFixed(3);
  console.log(`appendTurn on ${url ? 'Postgres' : 'a WAL file'}: ${times.length} writes (${SESSIONS} sessions × ${TURNS} turns) — p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms (the max is occasional, most likely a WAL checkpoint)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
