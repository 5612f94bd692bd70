/**
 * Records the conversation-journal fixtures of test/recorded/ from real runs: `palabre serve` in
 * process with its offline providers, a Skull request over MQTT, a docs question over HTTP, a T2
 * text session over the WebSocket (and the correction it starts), each saved as
 * `palabre replay ID --save-test` would. A fixture of the same machine is replaced. Run it when a
 * change of a chart or a prompt is intended and test/journal/recorded.test.ts says it diverges.
 *
 *   npx tsx scripts/record-journal-fixtures.ts [DIR=test/recorded]
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run as replay } from '../cli/commands/replayCommand.js';
import { run as journal } from '../cli/commands/journalCommand.js';
import { captureIo } from '../test/support/cliIo.js';
import { makeCorpus } from '../test/docs/fixtures.js';
import { driveSurfaces } from '../test/journal/drive.js';

const out = process.argv[2] ?? join('test', 'recorded');
const data = mkdtempSync(join(tmpdir(), 'palabre-fixtures-'));
const corpus = makeCorpus();
try {
  await driveSurfaces({ data, corpus, prefix: `fixtures-${process.pid}` });
  const env = { DATA_DIR: data, LOG_LEVEL: 'silent', SKULL_PROMPT_FILE: 'prompts/skull/prompt.txt' };
  const listIo = captureIo(env);
  await journal(['list', '--json'], listIo);
  const listed = JSON.parse(listIo.out()) as Array<{ id: string; machine: string }>;
  mkdirSync(out, { recursive: true });
  for (const { id, machine } of listed) {
    for (const f of readdirSync(out)) if (f.startsWith(`${machine}-`) && f.endsWith('.json')) rmSync(join(out, f));
    const io = captureIo(env);
    const code = await replay([id, '--save-test', out], io);
    process.stdout.write(`${io.out()}${io.err()}`);
    if (code !== 0) process.exitCode = 1;
  }
} finally {
  rmSync(data, { recursive: true, force: true });
  rmSync(corpus, { recursive: true, force: true });
}
