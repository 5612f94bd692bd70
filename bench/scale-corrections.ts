/**
 * Corrections per second: one instance vs two instances on one Postgres (and one on the embedded
 * SQLite file for reference). Each instance is a real `palabre serve` process (corrections
 * surface, offline provider: detectors + report + store save, no model latency, GRAMMALECTE=off);
 * the load is POST /corrections/ee spread round-robin over the instances, CONCURRENCY in flight.
 *
 *   eval "$(bash deploy/pg-throwaway.sh start)"      # or any DATABASE_URL_TEST
 *   npx tsx bench/scale-corrections.ts [requests=600] [concurrency=16]
 *
 * Prints one JSON line per setup, then a table. On a shared 2-core machine two processes compete
 * with each other and with Postgres for the same cores: read the ratio, not the absolute numbers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPalabreConfig } from '../actors/palabreConfig.js';
import { createAuth } from '../core/auth.js';
import { createTestDatabase } from '../test/support/stores.js';
import { startInstance, stopInstances, type Instance } from './support/instances.js';

const REQUESTS = Math.max(50, Number(process.argv[2] ?? 600));
const CONCURRENCY = Math.max(1, Number(process.argv[3] ?? 16));
const BASE_URL = process.env.DATABASE_URL_TEST;
const JWT_SECRET = 'bench-jwt-secret-0123456789abcdef';
const TEXTE = `Bonjour Marc,
Je ne pourrai pas venir à la réunion de demain matin car mon fils est malade et je dois l'emmener chez le médecin. Est-ce que tu pourrais prendre des notes pour moi ? Je sais pas encore si je serai là jeudi. Je dois aussi checker les chiffres du budget avant vendredi, donc envoie-moi le document s'il te plaît.
Je te remercie beaucoup, je te revaudrai ça.
Nadia`;

async function load(urls: string[], token: string): Promise<{ perS: number; p50: number; p99: number; failed: number }> {
  const body = JSON.stringify({ tache: 'EE_T1', consigne: 'Écrivez un message à votre collègue pour lui demander de prendre des notes.', texte: TEXTE });
  const lat: number[] = [];
  let next = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < REQUESTS) {
      const i = next++;
      const s = performance.now();
      const res = await fetch(`${urls[i % urls.length]}/corrections/ee`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body });
      await res.arrayBuffer();
      if (!res.ok) failed++;
      lat.push(performance.now() - s);
    }
  }));
  const secs = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  const pct = (p: number) => Math.round(lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]! * 10) / 10;
  return { perS: Math.round((REQUESTS / secs) * 10) / 10, p50: pct(0.5), p99: pct(0.99), failed };
}

const token = await createAuth(loadPalabreConfig({ env: { JWT_SECRET }, dotenvPath: null })).mintToken({ sub: 'bench-candidate', plan: 'free' });
const setups: Array<{ name: string; instances: number; postgres: boolean }> = [
  { name: 'sqlite, 1 instance', instances: 1, postgres: false },
  ...(BASE_URL ? [{ name: 'postgres, 1 instance', instances: 1, postgres: true }, { name: 'postgres, 2 instances', instances: 2, postgres: true }] : []),
];
if (!BASE_URL) console.error('DATABASE_URL_TEST unset: only the SQLite setup runs (eval "$(bash deploy/pg-throwaway.sh start)")');
const rows: Array<Record<string, unknown>> = [];
for (const setup of setups) {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-bench-scale-'));
  const database = setup.postgres && BASE_URL ? await createTestDatabase(BASE_URL) : undefined;
  const instances: Instance[] = [];
  try {
    for (let i = 0; i < setup.instances; i++) {
      instances.push(await startInstance(`i${i}`, dir, database?.url, { SURFACES: 'corrections', CORRECTION_PROVIDER: 'offline', GRAMMALECTE: 'off', JWT_SECRET }));
    }
    await load(instances.map((x) => x.url), token); // warm-up pass (JIT, pools); not counted
    const r = await load(instances.map((x) => x.url), token);
    const row = { setup: setup.name, requests: REQUESTS, concurrency: CONCURRENCY, correctionsPerS: r.perS, p50Ms: r.p50, p99Ms: r.p99, failed: r.failed, loadavg1m: Math.round(loadavg()[0]! * 10) / 10 };
    console.log(JSON.stringify(row));
    rows.push(row);
  } finally {
    await stopInstances(instances);
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
console.table(rows);
