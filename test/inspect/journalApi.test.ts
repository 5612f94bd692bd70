import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../core/store/db.js';
import { sqliteStore } from '../../core/store/sqlStore.js';
import { storeOf } from '../../core/store/appStore.js';
import { JOURNAL_MIGRATIONS } from '../../core/journal/store.js';
import { mountInspectJournal } from '../../transports/http/inspectJournal.js';
import { allMachines } from '../../actors/serve.js';
import { adminLogin, startInspectServer, type InspectServer } from './support.js';
import { recordedFixtures, storeJournals } from './recordedFixtures.js';

const SKULL_ASK = 'skull.turn.idle —ai.request→ skull.turn.responding';

/**
 * `/api/inspect/journal*` over real HTTP, on `palabre serve`'s own SQLite file holding the
 * conversations recorded from real runs of each surface (test/recorded/).
 */
describe('GET /api/inspect/journal', () => {
  let srv: InspectServer;
  let cookie: string;
  const fixtures = recordedFixtures();
  const skull = fixtures.find((j) => j.machine === 'skull')!;

  beforeAll(async () => {
    srv = await startInspectServer([() => import('../../actors/inspect/surface.js').then((m) => m.inspectSurface)]);
    await storeJournals(storeOf(srv.server.ctx), fixtures);
    cookie = await adminLogin(srv.url);
  });
  afterAll(async () => {
    await srv?.close();
  });

  const get = (path: string, withCookie = true) => fetch(`${srv.url}${path}`, { redirect: 'manual', headers: withCookie ? { cookie, accept: 'application/json' } : { accept: 'application/json' } });

  it('answers 401 JSON without an admin session, and the page sends the browser to the login', async () => {
    for (const path of ['/api/inspect/journal', `/api/inspect/journal/${skull.id}`, '/api/inspect/journal/coverage?machine=skull']) {
      const res = await get(path, false);
      expect(res.status, path).toBe(401);
      expect(((await res.json()) as { error: string }).error).toMatch(/admin login required/);
    }
    const forged = await fetch(`${srv.url}/api/inspect/journal/${skull.id}`, { headers: { cookie: 'palabre_admin=forged.value' } });
    expect(forged.status).toBe(401);
    const page = await get(`/inspect/journal/${skull.id}`, false);
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe(`/admin/login?next=${encodeURIComponent(`/inspect/journal/${skull.id}`)}`);
  });

  it('lists the recorded conversations', async () => {
    const res = await get('/api/inspect/journal');
    expect(res.status).toBe(200);
    const { conversations } = (await res.json()) as { conversations: Array<{ id: string; machine: string; steps: number }> };
    expect(conversations.map((c) => c.id).sort()).toEqual(fixtures.map((j) => j.id).sort());
    expect(conversations.find((c) => c.id === skull.id)).toMatchObject({ machine: 'skull', surface: 'skull', steps: skull.steps.length });
    const docs = (await (await get('/api/inspect/journal?surface=docs')).json()) as { conversations: Array<{ machine: string }> };
    expect(docs.conversations.map((c) => c.machine)).toEqual(['chat']);
  });

  it('gives one conversation: its header, its machine and its steps as recorded', async () => {
    const res = await get(`/api/inspect/journal/${skull.id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { conversation: Record<string, unknown>; machine: Record<string, unknown>; steps: unknown[]; input: unknown };
    expect(body.conversation).toEqual({ id: skull.id, systemId: skull.systemId, surface: 'skull', machine: 'skull', startedAt: skull.startedAt, endedAt: skull.endedAt, startMs: skull.startMs, steps: skull.steps.length });
    expect(body.machine).toEqual({ name: 'skull', known: true, chart: '/inspect/charts/skull.svg' });
    expect(body.steps).toEqual(skull.steps);
    expect(body.input).toEqual(skull.input);
  });

  it('answers 404 JSON for an unknown id and 400 for an id that cannot be one', async () => {
    const missing = await get('/api/inspect/journal/skull-nope-000000');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toBe('no recorded conversation with id skull-nope-000000: GET /api/inspect/journal lists them');
    const bad = await get(`/api/inspect/journal/${encodeURIComponent('../etc passwd')}`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^invalid conversation id/);
  });

  it('counts, per transition of a machine, the recorded conversations that took it', async () => {
    const res = await get('/api/inspect/journal/coverage?machine=skull');
    expect(res.status).toBe(200);
    const cov = (await res.json()) as { machine: string; conversations: number; transitions: Array<{ transition: string; taken: number; times: number }> };
    expect(cov.machine).toBe('skull');
    expect(cov.conversations).toBe(1);
    expect(cov.transitions.find((r) => r.transition === SKULL_ASK)).toMatchObject({ taken: 1, times: 1 });
    expect(cov.transitions.filter((r) => r.taken > 0)).toHaveLength(3);
    const bad = await get('/api/inspect/journal/coverage?machine=nope');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/machine must be one of palabre machines/);
  });
});

describe('recorded traffic against the model tests coverage', () => {
  let dir: string;
  let server: ReturnType<ReturnType<typeof express>['listen']>;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-journal-cov-'));
    const store = sqliteStore(openStore({ path: join(dir, 'palabre.db') }), JOURNAL_MIGRATIONS);
    const journal = await storeJournals(store, recordedFixtures());
    // What `npm run test:model` would write had no test taken the Skull's idle → responding on ai.request.
    mkdirSync(join(dir, 'model'));
    writeFileSync(join(dir, 'model', 'skull.json'), JSON.stringify({ machine: 'skull', runId: 'run-test', transitions: { total: 34, covered: 33, uncovered: [SKULL_ASK] } }));
    const app = express();
    mountInspectJournal(app, { journal, machines: await allMachines(), adminEnabled: true, isAdmin: async () => true, coverageDir: join(dir, 'model') });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('flags the path real traffic takes that no test took, and the tested paths traffic never takes', async () => {
    const cov = (await (await fetch(`${url}/api/inspect/journal/coverage?machine=skull`)).json()) as {
      modelCoverage: { runId: string } | null;
      transitions: Array<{ transition: string; taken: number; tested: boolean | null; flag: string | null }>;
      takenUntested: string[];
      testedUntaken: string[];
    };
    expect(cov.modelCoverage?.runId).toBe('run-test');
    expect(cov.takenUntested).toEqual([SKULL_ASK]);
    expect(cov.transitions.find((r) => r.transition === SKULL_ASK)).toMatchObject({ taken: 1, tested: false, flag: 'untested' });
    expect(cov.transitions.find((r) => r.transition === 'skull.turn.publishing —publish.done [isThisPublish]→ skull.turn.idle')).toMatchObject({ taken: 1, tested: true, flag: null });
    expect(cov.testedUntaken).toHaveLength(34 - 3);
    expect(cov.testedUntaken).toContain('skull —config.ia→ (stays)');
    // No coverage file for a machine: tested is unknown, nothing is flagged.
    const chat = (await (await fetch(`${url}/api/inspect/journal/coverage?machine=chat`)).json()) as typeof cov;
    expect(chat.modelCoverage).toBeNull();
    expect(chat.transitions.every((r) => r.tested === null && r.flag === null)).toBe(true);
    expect(chat.transitions.some((r) => r.taken === 1)).toBe(true);
  });
});
