import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JournalStore } from '../../core/journal/store.js';
import type { Journal } from '../../core/journal/step.js';
import { PORTABLE_MIGRATIONS } from '../support/migrations.js';
import { openStore } from '../../core/store/db.js';
import { openAppStore } from '../../core/store/appStore.js';
import { run as replayCmd } from '../../cli/commands/replayCommand.js';
import { captureIo } from '../support/cliIo.js';
import { freePort, spawnServe, type ServeProcess } from '../serve/spawnServe.js';
import { Listener } from '../skull/support.js';
import { makeCorpus } from '../docs/fixtures.js';

/**
 * A killed process loses no step already acknowledged to the outside world: `palabre serve` (a
 * child process, SQLite file) answers Skull requests over MQTT and a docs question over HTTP, the
 * test waits for the replies, then kills it with SIGKILL. The batch interval is set far beyond
 * the test (JOURNAL_FLUSH_MS), so only the write made before each effect left can have put the
 * steps in the file: reopened, it holds every step of every reply received, and each conversation
 * replays the same.
 */
const data = mkdtempSync(join(tmpdir(), 'palabre-durable-'));
const corpus = makeCorpus();
const prefix = `durable-${process.pid}`;
const env = { DATA_DIR: data, LOG_LEVEL: 'silent', SKULL_PROMPT_FILE: 'prompts/skull/prompt.txt' };
let serve: ServeProcess | undefined;

afterAll(() => {
  if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
  rmSync(data, { recursive: true, force: true });
  rmSync(corpus, { recursive: true, force: true });
});

async function journals(): Promise<Journal[]> {
  const db = openStore({ path: join(data, 'palabre.db') });
  try {
    // Opened with its file, as `palabre journal` does: what the killed process spilled is moved in.
    const store = new JournalStore(await openAppStore({ db, migrations: PORTABLE_MIGRATIONS }), { file: join(data, 'palabre.db') });
    const out: Journal[] = [];
    for (const c of await store.list()) out.push((await store.get(c.id))!);
    return out;
  } finally {
    db.close();
  }
}

describe('journal durability across kill -9 (palabre serve, SQLite)', () => {
  it('keeps every step of the Skull replies and of the docs answer received before the kill, and replays them', async () => {
    const [httpPort, brokerPort] = [await freePort(), await freePort()];
    serve = spawnServe({
      PORT: String(httpPort), MQTT_EMBEDDED_PORT: String(brokerPort), DATA_DIR: data, CORPUS_DIR: corpus, SURFACES: 'skull,docs',
      CHAT_PROVIDER: 'offline', SKULL_PROVIDER: 'offline', SKULL_TOPIC_PREFIX: prefix, SKULL_PROMPT_FILE: 'prompts/skull/prompt.txt',
      JWT_SECRET: 'durable-test-0123456789abcdef0123', JOURNAL_FLUSH_MS: '3600000',
    });
    const [, base] = await serve.waitFor(/health (http:\/\/\S+)\/healthz/, 60_000);

    // The docs question first: its conversation's end writes what is pending, the Skull's steps after it are the test.
    const res = await fetch(`${base}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Progress token types?' }) });
    expect(res.status).toBe(200);
    const answer = ((await res.json()) as { answer: string }).answer;
    expect(answer.length).toBeGreaterThan(0);

    const mqtt = await Listener.open(`mqtt://127.0.0.1:${brokerPort}`, [`${prefix}/ai/response`, `${prefix}/ai/usage`]);
    const questions = ['Raconte-moi une blague sur les pirates', 'Et une sur les squelettes ?', 'Une dernière, sur la mer'];
    for (const [i, text] of questions.entries()) {
      await mqtt.publish(`${prefix}/ai/request`, JSON.stringify({ text }));
      await mqtt.waitFor(`${prefix}/ai/usage`, i + 1, 20_000);
    }
    const replies = mqtt.on(`${prefix}/ai/response`).map((r) => r.text as string);
    await mqtt.client.endAsync();
    expect(replies).toHaveLength(3);

    serve.child.kill('SIGKILL');
    expect((await serve.exited).signal).toBe('SIGKILL');

    // The steps written while the replies waited are in the killed process's spill file; the
    // next opening of the journal moves them into the SQLite file.
    const spill = join(data, `palabre.db-journal-${serve.child.pid}`);
    expect(statSync(spill).size).toBeGreaterThan(0);
    const all = await journals();
    expect(existsSync(spill)).toBe(false);
    const skull = all.find((j) => j.machine === 'skull')!;
    expect(skull).toBeDefined();
    expect(skull.endedAt).toBeNull(); // the process never got to close it
    // Every request, and the step that published each reply received, with that reply.
    expect(skull.steps.filter((s) => s.event.type === 'ai.request').map((s) => s.event.text)).toEqual(questions);
    const published = skull.steps.flatMap((s) => s.actions.filter((a) => a.type === 'publishReply').map((a) => (a.params as { outgoing: { response: { text: string } } }).outgoing.response.text));
    expect(published).toEqual(replies);
    expect(skull.steps.map((s) => s.seq)).toEqual(skull.steps.map((_, i) => i));

    const chat = all.find((j) => j.machine === 'chat')!;
    expect(chat).toBeDefined();
    expect(chat.steps.at(-1)!.status).toBe('done');
    expect(JSON.stringify(chat.steps.at(-1))).toContain(JSON.stringify(answer.slice(0, 40)).slice(1, -1));

    for (const j of [skull, chat]) {
      const io = captureIo(env);
      const code = await replayCmd([j.id], io);
      expect(io.out() + io.err(), j.machine).toMatch(/: same — /);
      expect(code).toBe(0);
    }
  }, 120_000);
});
