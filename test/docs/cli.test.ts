import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as runAsk } from '../../cli/commands/askCommand.js';
import { run as runIndex } from '../../cli/commands/indexCommand.js';
import { captureIo } from '../support/cliIo.js';
import { rememberedCorpusFile } from '../../cli/corpusChoice.js';
import { freePort, spawnServe } from '../serve/spawnServe.js';
import { makeCorpus } from './fixtures.js';
import { LOW_CONFIDENCE_NOTICES } from '../../prompts/docs/chatPrompt.js';

const io = captureIo;

let root: string;
let data: string;
beforeAll(() => {
  root = makeCorpus();
  data = mkdtempSync(join(tmpdir(), 'palabre-cli-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});

describe('palabre index', () => {
  it('writes JSON progress lines when stdout is not a TTY, persists, and skips unchanged files next time', async () => {
    const first = io({ DATA_DIR: data });
    expect(await runIndex([root], first)).toBe(0);
    const lines = first.out().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.event === 'progress')).toHaveLength(3);
    const done = lines.at(-1)!;
    expect(done).toMatchObject({ event: 'done', added: 3, passages: expect.any(Number) });
    expect(existsSync(done.index as string)).toBe(true);
    const second = io({ DATA_DIR: data });
    expect(await runIndex([root], second)).toBe(0);
    expect(JSON.parse(second.out().trim().split('\n').at(-1)!)).toMatchObject({ added: 0, unchanged: 3 });
  });

  it('fails clearly on an empty folder and on bad flags', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'palabre-empty-'));
    const a = io({ DATA_DIR: data });
    expect(await runIndex([empty], a)).toBe(1);
    expect(a.err()).toContain('no Markdown');
    const b = io({ DATA_DIR: data });
    expect(await runIndex(['--nope'], b)).toBe(2);
    rmSync(empty, { recursive: true, force: true });
  });
});

describe('palabre ask', () => {
  it('answers with sources (exit 0) and refuses out of scope (exit 3)', async () => {
    const env = { DATA_DIR: data, CORPUS_DIR: root, CHAT_PROVIDER: 'offline', LOG_LEVEL: 'silent' };
    const a = io(env);
    expect(await runAsk(['Combien de temps conserver un dossier médical ?'], a)).toBe(0);
    expect(a.out()).toContain('20 ans');
    expect(a.out()).toContain('rgpd/14-conservation.md › Fiche n°14 : Gérer la durée de conservation › Exemples');
    const b = io(env);
    expect(await runAsk(['--json', 'How do I factory reset an iPhone?'], b)).toBe(3);
    expect(JSON.parse(b.out())).toMatchObject({ state: 'outOfScope', outOfScope: true, sources: [] });
  });

  it('on docs/, « Comment changer le port HTTP ? » quotes the command, and every [n] printed names its line of the sources', async () => {
    const env = { DATA_DIR: data, CORPUS_DIR: join(process.cwd(), 'docs'), CHAT_PROVIDER: 'offline', LOG_LEVEL: 'silent' };
    const a = io(env);
    expect(await runAsk(['Comment changer le port HTTP ?'], a)).toBe(0);
    const out = a.out();
    expect(out).toContain('PORT=3001 npm start');
    const listed = [...out.matchAll(/^ {2}\[(\d+)\] /gm)].map((m) => m[1]);
    const marks = [...out.slice(0, out.indexOf('\nSources :')).matchAll(/\[(\d+)\]/g)].map((m) => m[1]);
    expect(marks.length).toBeGreaterThan(0);
    // The list is numbered 1..n, and each mark of the printed answer is one of its lines, none left unquoted.
    expect(listed).toEqual(listed.map((_, i) => String(i + 1)));
    for (const n of marks) expect(listed).toContain(n);
    for (const n of listed) expect(marks).toContain(n);
  }, 60_000);

  it('labels follow the answer\'s language, and the sources are numbered like its [n] marks', async () => {
    const env = { DATA_DIR: data, CORPUS_DIR: root, CHAT_PROVIDER: 'offline', LOG_LEVEL: 'silent' };
    const en = io(env);
    expect(await runAsk(['What type must progress tokens be?'], en)).toBe(0);
    const out = en.out();
    expect(out).toContain('\nSources:\n  [1] mcp/progress.mdx › Progress Flow\n');
    expect(out).toContain('(offline: extractive answer, no model called)');
    expect(out).not.toMatch(/Sources :|réponse extractive/);
    // Every [n] of the answer names a numbered line of the list.
    const listed = new Set([...out.matchAll(/^ {2}\[(\d+)\] /gm)].map((m) => m[1]));
    const marks = [...out.slice(0, out.indexOf('\nSources:')).matchAll(/\[(\d+)\]/g)].map((m) => m[1]);
    expect(marks.length).toBeGreaterThan(0);
    for (const n of marks) expect(listed).toContain(n);
    const fr = io(env);
    expect(await runAsk(['Combien de temps conserver un dossier médical ?'], fr)).toBe(0);
    expect(fr.out()).toContain('\nSources :\n  [1] rgpd/14-conservation.md › ');
    expect(fr.out()).toContain('(offline : réponse extractive, aucun modèle appelé)');
  });

  it('a low-confidence answer prints the same notice as the page', async () => {
    // A high bound nothing reaches: every answer falls in the band between the two bounds.
    const c = io({ DATA_DIR: data, CORPUS_DIR: root, CHAT_PROVIDER: 'offline', LOG_LEVEL: 'silent', CHAT_SCORE_CONFIDENT: '0.99' });
    expect(await runAsk(['Combien de temps garder un dossier médical ?'], c)).toBe(0);
    expect(c.out()).toContain(LOW_CONFIDENCE_NOTICES.fr);
  });
});

describe('index, ask and serve agree on the corpus', () => {
  const question = 'Combien de temps conserver un dossier médical ?';

  it('index DIR is remembered while CORPUS_DIR is unset: ask answers from it and says so', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'palabre-remember-'));
    try {
      // Before indexing, CORPUS_DIR's default (docs/) knows nothing about medical records: the
      // answer does not come from the fixture. Refused (exit 3) or answered from docs/, whose pages
      // hold the question's four words apart — how confidently depends on docs/'s current text (an
      // edit of docs/docs-assistant.md once moved it over the high bound: bench/journal/2026-12-docs-assistant.md,
      // « Not done »), which is not what this test is about.
      const before = io({ DATA_DIR: dataDir, CHAT_PROVIDER: 'offline', LOG_LEVEL: 'silent' });
      const code = await runAsk([question], before);
      expect([0, 3]).toContain(code);
      if (code === 3) expect(before.out()).toContain('pas dans la documentation');
      expect(before.out()).not.toContain('20 ans');

      const idx = io({ DATA_DIR: dataDir });
      expect(await runIndex([root], idx)).toBe(0);
      expect(JSON.parse(idx.out().trim().split('\n').at(-1)!)).toMatchObject({ event: 'done', remembered: true });
      expect(JSON.parse(readFileSync(rememberedCorpusFile(dataDir), 'utf8'))).toMatchObject({ root });

      const after = io({ DATA_DIR: dataDir, CHAT_PROVIDER: 'offline', LOG_LEVEL: 'silent' });
      expect(await runAsk([question], after)).toBe(0);
      expect(after.out()).toContain('20 ans');
      expect(after.err()).toContain(`corpus: ${root} (indexed last by \`palabre index\`; CORPUS_DIR is unset`);

      // CORPUS_DIR set wins over the remembered folder, silently.
      const explicit = io({ DATA_DIR: dataDir, CORPUS_DIR: 'docs', CHAT_PROVIDER: 'offline', LOG_LEVEL: 'silent' });
      await runAsk([question], explicit);
      expect(explicit.out()).not.toContain('20 ans');
      expect(explicit.err()).toBe('');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('ask --corpus DIR answers from DIR whatever was indexed last; bad arguments exit 2 with the usage', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'palabre-corpusflag-'));
    try {
      const a = io({ DATA_DIR: dataDir, CHAT_PROVIDER: 'offline', LOG_LEVEL: 'silent' });
      expect(await runAsk(['--corpus', root, question], a)).toBe(0);
      expect(a.out()).toContain('rgpd/14-conservation.md');
      expect(existsSync(rememberedCorpusFile(dataDir))).toBe(false); // ask does not change the default
      const b = io({ DATA_DIR: dataDir });
      expect(await runAsk(['--corpus'], b)).toBe(2);
      expect(b.err()).toContain('usage: palabre ask');
      expect(b.err()).toContain('Exit codes:');
      const c = io({ DATA_DIR: dataDir });
      expect(await runAsk([], c)).toBe(2);
      expect(c.err()).toContain('no question given');
      const d = io({ DATA_DIR: dataDir });
      expect(await runAsk(['--corpus', join(root, 'nope'), question], d)).toBe(2);
      expect(d.err()).toContain(`the corpus ${join(root, 'nope')} is not a folder (--corpus)`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('serve answers from the folder index remembered, and says so on stderr', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'palabre-serve-remember-'));
    expect(await runIndex([root], io({ DATA_DIR: dataDir }))).toBe(0);
    const serve = spawnServe({ DATA_DIR: dataDir, PORT: String(await freePort()), MQTT_EMBEDDED_PORT: String(await freePort()), SURFACES: 'docs' });
    try {
      const [, base] = await serve.waitFor(/health (http:\/\/\S+)\/healthz/);
      const hits = (await (await fetch(`${base}/api/search?q=dossier%20m%C3%A9dical&k=1`)).json()) as unknown;
      expect(JSON.stringify(hits)).toContain('14-conservation.md');
      expect(serve.stderr()).toContain(`corpus: ${root} (indexed last by \`palabre index\``);
      serve.child.kill('SIGTERM');
      expect((await serve.exited).code).toBe(0);
    } finally {
      if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
