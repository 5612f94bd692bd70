import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { journalFileSchema, type Journal } from '../../core/journal/step.js';
import { replayJournal } from '../../core/journal/replay.js';
import { divergenceText } from '../journalText.js';
import { openJournal } from '../journalStore.js';
import { loadConfigOrExit } from '../configArgs.js';
import type { PalabreConfig } from '../../actors/palabreConfig.js';
import { replayTargets } from '../replayTargets.js';
import { processIo, type CliIo } from '../io.js';
import { EXIT } from '../definitions.js';
import { parseCommand, usageError } from '../parse.js';

export const DIVERGED = 4;
const DEFAULT_FIXTURES = join('test', 'recorded');

/**
 * `palabre replay ID|FILE.json [--json] [--save-test [DIR]]`: the recorded conversation rebuilt
 * with today's chart, compared step by step (core/journal/replay.ts).
 */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  const parsed = parseCommand('replay', args, io);
  if ('exit' in parsed) return parsed.exit;
  const [ref, dir, ...rest] = parsed.positionals;
  if (!ref) return usageError('replay', io, 'give the id of a recorded conversation (palabre journal list prints them) or a fixture file');
  if (rest.length > 0 || (dir && !parsed.flag('save-test'))) return usageError('replay', io, `too many arguments (${[dir, ...rest].filter(Boolean).join(' ')})`);
  const file = parsed.string('config');
  const configured = loadConfigOrExit(io, file ? { file } : {});
  if ('exit' in configured) return configured.exit;
  const loaded = await load(ref, io, configured.config);
  if ('exit' in loaded) return loaded.exit;
  const journal = loaded.journal;
  const target = await replayTargets(configured.config)(journal.machine);
  if (!target) {
    io.stderr.write(`palabre replay: ${journal.id} was recorded by the machine "${journal.machine}", which this version does not have. \`palabre machines\` lists the machines.\n`);
    return EXIT.failure;
  }
  const result = replayJournal(journal, target);
  if (parsed.flag('json')) io.stdout.write(`${JSON.stringify(result)}\n`);
  else if (result.same) {
    const cut = result.partial ? '; its last step was cut short by the end of the process and matches up to its last recorded action' : '';
    io.stdout.write(`replay ${journal.id}: same — ${result.steps} steps of the ${journal.machine} conversation replayed against today's chart${cut}\n`);
  }
  else io.stdout.write(`${divergenceText(journal.id, journal.steps.length, result.divergence!)}\n`);
  if (parsed.flag('save-test')) {
    const out = dir ?? DEFAULT_FIXTURES;
    mkdirSync(out, { recursive: true });
    const file = join(out, `${journal.id}.json`);
    writeFileSync(file, `${JSON.stringify(journal, null, 1)}\n`);
    io.stderr.write(`wrote ${file}: the test suite replays it (test/journal/recorded.test.ts)\n`);
  }
  return result.same ? EXIT.ok : DIVERGED;
}

async function load(ref: string, io: CliIo, config: PalabreConfig): Promise<{ journal: Journal } | { exit: number }> {
  if (ref.endsWith('.json') && existsSync(ref)) {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(ref, 'utf8'));
    } catch (err) {
      io.stderr.write(`palabre replay: ${ref} is not JSON (${(err as Error).message})\n`);
      return { exit: EXIT.usage };
    }
    const journal = journalFileSchema.safeParse(data);
    if (!journal.success) {
      io.stderr.write(`palabre replay: ${ref} is not a journal written by --save-test (${journal.error.issues[0]?.path.join('.') ?? ''}: ${journal.error.issues[0]?.message ?? 'invalid'})\n`);
      return { exit: EXIT.usage };
    }
    return { journal: journal.data };
  }
  const opened = await openJournal(config);
  try {
    const journal = await opened.journal.get(ref);
    if (!journal) {
      io.stderr.write(`palabre replay: no recorded conversation has the id ${JSON.stringify(ref)}. \`palabre journal list\` prints the ids.\n`);
      return { exit: EXIT.usage };
    }
    return { journal };
  } finally {
    await opened.close();
  }
}
