import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMachine, type AnyStateMachine } from 'xstate';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { silentLogger } from '../../core/log.js';
import { startServer } from '../../actors/serve.js';
import { JournalStore } from '../../core/journal/store.js';
import { replayJournal } from '../../core/journal/replay.js';
import type { Journal, JournalSummary } from '../../core/journal/step.js';
import { openStore } from '../../core/store/db.js';
import { openAppStore } from '../../core/store/appStore.js';
import { skullSurface } from '../../actors/skull/surface.js';
import { chatMachine } from '../../machines/chat.js';
import { t2liveMachine } from '../../machines/t2live.js';
import { run as journalCmd } from '../../cli/commands/journalCommand.js';
import { run as replayCmd } from '../../cli/commands/replayCommand.js';
import { captureIo } from '../support/cliIo.js';
import { divergenceText } from '../../cli/journalText.js';
import { Listener, uniquePrefix } from '../skull/support.js';
import { makeCorpus } from '../docs/fixtures.js';
import { driveSurfaces } from './drive.js';
import { PORTABLE_MIGRATIONS } from '../support/migrations.js';

/**
 * `palabre serve` (in process, offline providers) hosts a Skull exchange over its MQTT edge, a docs
 * chat over HTTP and a T2 text session over its WebSocket: each is journaled, listed by
 * `palabre journal list`, replays the same with `palabre replay`, and replays as different against
 * a chart whose prompt or guard was changed.
 */
let data: string;
let corpus: string;
const prefix = uniquePrefix();
let listed: JournalSummary[] = [];

async function cli(cmd: typeof journalCmd, args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo({ DATA_DIR: data, LOG_LEVEL: 'silent', SKULL_PROMPT_FILE: 'prompts/skull/prompt.txt', ...env });
  const code = await cmd(args, io);
  return { code, out: io.out(), err: io.err() };
}

async function journalOf(machine: string): Promise<Journal> {
  const db = openStore({ path: join(data, 'palabre.db') });
  try {
    const store = new JournalStore(await openAppStore({ db, migrations: PORTABLE_MIGRATIONS }));
    const id = listed.find((s) => s.machine === machine)!.id;
    return (await store.get(id))!;
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  data = mkdtempSync(join(tmpdir(), 'palabre-journal-'));
  corpus = makeCorpus();
  await driveSurfaces({ data, corpus, prefix });
  const list = await cli(journalCmd, ['list', '--json']);
  expect(list.code).toBe(0);
  listed = JSON.parse(list.out) as JournalSummary[];
}, 120_000);

afterAll(() => {
  if (process.env.JOURNAL_TEST_KEEP) return void process.stderr.write(`kept ${data}\n`);
  rmSync(data, { recursive: true, force: true });
  rmSync(corpus, { recursive: true, force: true });
});

describe('the journal of palabre serve', () => {
  it('lists one conversation per surface with its steps', () => {
    for (const [surface, machine] of [['skull', 'skull'], ['docs', 'chat'], ['t2', 't2live']] as const) {
      const row = listed.find((s) => s.machine === machine);
      expect(row, `${machine} journaled`).toMatchObject({ surface, machine });
      expect(row!.steps).toBeGreaterThan(2);
      expect(row!.endedAt).not.toBeNull();
      expect(Object.keys(row!).sort()).toEqual(['endedAt', 'id', 'machine', 'startedAt', 'steps', 'surface']);
    }
  });

  it('records what each conversation did: the model request, the reply published, the frames', async () => {
    const skull = await journalOf('skull');
    const generate = skull.steps.flatMap((s) => s.actions).find((a) => a.type === 'generate') as { params: { request: { system: string; messages: Array<{ content: string }> } } };
    expect(generate.params.request.messages[0]!.content).toContain('pirates');
    expect(skull.steps.flatMap((s) => s.actions).some((a) => a.type === 'publishReply')).toBe(true);
    const chat = await journalOf('chat');
    expect(chat.steps.flatMap((s) => s.invoked).map((i) => i.src)).toEqual(expect.arrayContaining(['retrieve', 'generate']));
    expect(chat.steps.some((s) => s.event.type === 'xstate.done.actor.retrieve')).toBe(true);
    const t2 = await journalOf('t2live');
    expect(t2.steps.some((s) => s.from.startsWith('child:'))).toBe(true);
    // No secret of the session (its JWT) reaches the store.
    expect(JSON.stringify(t2)).not.toMatch(/eyJ[A-Za-z0-9_-]{5,}\./);
  });

  it('palabre journal show prints the steps; an unknown id is a clear error (exit 2)', async () => {
    const id = listed.find((s) => s.machine === 'skull')!.id;
    const show = await cli(journalCmd, ['show', id]);
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/#0 {2}\+\d+ ms {2}init {2}xstate\.init/);
    expect(show.out).toMatch(/do {5}generate /);
    const unknown = await cli(journalCmd, ['show', 'nope-123']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/no recorded conversation has the id "nope-123"/);
    const replayUnknown = await cli(replayCmd, ['nope-123']);
    expect(replayUnknown.code).toBe(2);
    expect(replayUnknown.err).toMatch(/palabre journal list/);
    const bySurface = await cli(journalCmd, ['list', '--surface', 'docs', '--json']);
    expect((JSON.parse(bySurface.out) as JournalSummary[]).map((s) => s.machine)).toEqual(['chat']);
  });

  it('palabre replay: each conversation behaves the same against today\'s charts (exit 0, one line)', async () => {
    for (const machine of ['skull', 'chat', 't2live']) {
      const id = listed.find((s) => s.machine === machine)!.id;
      const r = await cli(replayCmd, [id]);
      expect({ machine, code: r.code, out: r.out }).toMatchObject({ machine, code: 0 });
      expect(r.out.trim().split('\n')).toHaveLength(1);
      expect(r.out).toMatch(new RegExp(`^replay ${id}: same — \\d+ steps`));
    }
  });

  it('a changed prompt shows as a different model request at the step that asked it (exit 4 names the step)', async () => {
    const chat = await journalOf('chat');
    // A copy of the chat chart whose system prompt gained a sentence, as an edit of prompts/docs/chatPrompt.ts would.
    type Config = { states: Record<string, { invoke: { input: (a: unknown) => { request: { system: string } } } }> };
    const config = chatMachine.config as unknown as Config;
    const generating = config.states.generating!;
    const edited = createMachine({
      ...(config as object),
      states: { ...config.states, generating: { ...generating, invoke: { ...generating.invoke, input: (a: unknown) => {
        const i = generating.invoke.input(a);
        return { ...i, request: { ...i.request, system: `${i.request.system}\nRéponds en une phrase.` } };
      } } } },
    } as never, chatMachine.implementations as never) as unknown as AnyStateMachine;
    const result = replayJournal(chat, { machine: edited });
    const asked = chat.steps.findIndex((s) => s.invoked.some((i) => i.src === 'generate'));
    expect(result).toMatchObject({ same: false, divergence: { step: asked, field: 'invoked' } });
    expect(result.divergence!.path).toMatch(/input\.request\.system$/);
    expect(String(result.divergence!.got)).toContain('Réponds en une phrase.');
    const text = divergenceText(chat.id, chat.steps.length, result.divergence!);
    expect(text).toContain(`diverged at step ${asked} of ${chat.steps.length}`);
    expect(text).toMatch(/invoked\[0\]\.input\.request\.system differs\n {2}expected: .*\n {2}got: {6}.*Réponds en une phrase\./);
  });

  it('an edit of the Skull prompt file shows as a different generate request (palabre replay exits 4)', async () => {
    const skull = await journalOf('skull');
    const edited = join(data, 'prompt-edited.txt');
    writeFileSync(edited, `${readFileSync('prompts/skull/prompt.txt', 'utf8').trim()}\nRéponds en alexandrins.\n`);
    const r = await cli(replayCmd, [skull.id], { SKULL_PROMPT_FILE: edited });
    const asked = skull.steps.findIndex((s) => s.actions.some((a) => a.type === 'generate'));
    expect(r.code).toBe(4);
    expect(r.out).toContain(`replay ${skull.id}: diverged at step ${asked} of ${skull.steps.length} (edge ai.request`);
    expect(r.out).toMatch(/actions\[0\]\.params\.request\.system differs\n {2}expected: .*\n {2}got: {6}.*alexandrins/);
    const json = await cli(replayCmd, [skull.id, '--json'], { SKULL_PROMPT_FILE: edited });
    expect(json.code).toBe(4);
    expect(JSON.parse(json.out)).toMatchObject({ same: false, divergence: { step: asked, field: 'actions', path: '[0].params.request.system' } });
  });

  it('a changed guard shows as a different state at the first step it decides', async () => {
    const t2 = await journalOf('t2live');
    const edited = t2liveMachine.provide({ guards: { subjectFound: () => false } }) as unknown as AnyStateMachine;
    const result = replayJournal(t2, { machine: edited });
    const decided = t2.steps.findIndex((s) => s.event.type === 'xstate.done.actor.loadSubject');
    expect(decided).toBeGreaterThan(0);
    expect(result).toMatchObject({ same: false, steps: decided, divergence: { step: decided, field: 'state' } });
  });

  it('JOURNAL=off records nothing', async () => {
    const off = mkdtempSync(join(tmpdir(), 'palabre-journal-off-'));
    try {
      const config = loadPalabreConfig({ env: { DATA_DIR: off, PORT: '0', MQTT_EMBEDDED_PORT: '0', LOG_LEVEL: 'silent', SKULL_PROVIDER: 'offline', SKULL_TOPIC_PREFIX: `${prefix}-off`, SKULL_PROMPT_FILE: 'prompts/skull/prompt.txt', JOURNAL: 'off' }, dotenvPath: null, file: '' });
      const server = await startServer({ config, logger: silentLogger(), surfaces: [async () => skullSurface] });
      const mqtt = await Listener.open(server.ctx.mqtt.url, [`${prefix}-off/ai/response`]);
      await mqtt.publish(`${prefix}-off/ai/request`, JSON.stringify({ text: 'Bonjour' }));
      await mqtt.waitFor(`${prefix}-off/ai/response`, 1, 10_000);
      await mqtt.client.endAsync();
      await server.shutdown('test');
      const io = captureIo({ DATA_DIR: off, LOG_LEVEL: 'silent' });
      expect(await journalCmd(['list', '--json'], io)).toBe(0);
      expect(JSON.parse(io.out())).toEqual([]);
    } finally {
      rmSync(off, { recursive: true, force: true });
    }
  });
});
