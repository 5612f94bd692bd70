import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheDir } from '../../actors/corrections/cache.js';
import { INSTALL_HINT, locateGrammalecte } from '../../actors/corrections/grammalecte/locate.js';
import { createAuth } from '../../core/auth.js';
import { freePort, spawnServe, type ServeProcess } from '../serve/spawnServe.js';
import { until } from './support.js';

/**
 * A routine stop must not change grades: `palabre serve` (every surface, the default), T2 in text
 * mode, the real Grammalecte, the offline grading provider (so a report is the offline engines'
 * work alone). The same candidate turn is graded once in a session ended by the candidate and in
 * sessions drained by SIGTERM; the drained ones must get the same report, and the process exit 0.
 */
const found = locateGrammalecte(undefined, cacheDir());
if (!('path' in found) && process.env.CI === 'true') throw new Error(`CI=true and ${found.missing}: run ${INSTALL_HINT}`);

const SECRET = 'drain-grades-secret-0123456789abcdef';
const auth = createAuth({ JWT_SECRET: SECRET, DATA_DIR: '/nonexistent' });
// Agreement errors Grammalecte finds and the built-in detectors do not.
const TURN = 'Bonjour, je voudrais savoir si mes enfant peut venir à la piscine avec moi. Mes cousine sont allé au club hier et elles ont adoré.';

class Client {
  readonly json: Array<Record<string, unknown>> = [];
  close: number | undefined;
  readonly opened: Promise<void>;
  constructor(readonly ws: WebSocket) {
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('message', (data, binary) => {
      if (!binary) this.json.push(JSON.parse(String(data)) as Record<string, unknown>);
    });
    ws.on('close', (code) => (this.close = code));
  }
  has(pred: (m: Record<string, unknown>) => boolean): boolean {
    return this.json.some(pred);
  }
  report(): Record<string, unknown> | undefined {
    return (this.json.find((m) => m.type === 'report') as { report?: Record<string, unknown> } | undefined)?.report;
  }
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** One candidate turn answered by the offline interlocutor; the session stays open. */
async function talk(ws: string, sub: string): Promise<Client> {
  const token = await auth.mintToken({ sub, plan: 'premium' });
  const c = new Client(new WebSocket(`${ws}/t2/live?token=${token}&sujet=club-de-sport`));
  await c.opened;
  await until(() => c.has((m) => m.type === 'state' && m.value === 'listening'), `${sub} listening`, 30_000);
  c.ws.send(JSON.stringify({ type: 'text', text: TURN }));
  await until(() => c.has((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final === true), `${sub} reply`, 30_000);
  return c;
}

/** What grades a production: the scores, the errors and the engines (not the session's own facts). */
const grading = (r: Record<string, unknown> | undefined) => r && ({ scoreGlobal: r.scoreGlobal, criteres: r.criteres, erreurs: r.erreurs, moteurs: r.moteurs });

describe.skipIf(!('path' in found))('fault suite: a SIGTERM drain grades like a normal end', () => {
  it('T2 sessions drained by SIGTERM get the report of a session ended normally (with Grammalecte), and the exit code is 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-drain-grades-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    const serve: ServeProcess = spawnServe({
      PORT: String(port),
      MQTT_EMBEDDED_PORT: String(await freePort()),
      DATA_DIR: dir,
      JWT_SECRET: SECRET,
      CORRECTION_PROVIDER: 'offline',
      SHUTDOWN_TIMEOUT_MS: '30000',
    });
    cleanups.push(async () => {
      if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
      await serve.exited;
    });
    await serve.waitFor(/is serving/, 60_000);
    const ws = `ws://127.0.0.1:${port}`;

    const normal = await talk(ws, 'drain-normal');
    normal.ws.send(JSON.stringify({ type: 'end' }));
    await until(() => normal.close !== undefined, 'the normal end', 60_000);
    const expected = grading(normal.report());
    expect(expected?.moteurs).toEqual(['detecteurs', 'grammalecte']);

    const drained = await Promise.all(['drain-1', 'drain-2', 'drain-3', 'drain-4'].map((sub) => talk(ws, sub)));
    serve.child.kill('SIGTERM');
    const { code } = await serve.exited;
    for (const c of drained) expect(grading(c.report())).toEqual(expected);
    expect({ code, stderr: serve.stderr().split('\n').filter((l) => /exit|uncaught/i.test(l)) }).toEqual({ code: 0, stderr: [] });
    const logs = serve.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(logs.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
  }, 180_000);
});
