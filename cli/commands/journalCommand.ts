import { journalText, summaryLine } from '../journalText.js';
import { openJournal } from '../journalStore.js';
import { loadConfigOrExit } from '../configArgs.js';
import { processIo, type CliIo } from '../io.js';
import { EXIT } from '../definitions.js';
import { parseCommand, usageError } from '../parse.js';

/** `palabre journal list [--surface S] [--json]`, `palabre journal show ID [--json]`: the recorded conversations. */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  const parsed = parseCommand('journal', args, io);
  if ('exit' in parsed) return parsed.exit;
  const [sub = 'list', id, ...rest] = parsed.positionals;
  if (rest.length > 0) return usageError('journal', io, `too many arguments (${rest.join(' ')})`);
  if (sub !== 'list' && sub !== 'show') return usageError('journal', io, `unknown subcommand "${sub}": expected list or show`);
  if (sub === 'show' && !id) return usageError('journal', io, 'journal show needs the id of a conversation (palabre journal list prints them)');
  if (sub === 'list' && id) return usageError('journal', io, `journal list takes no id (got ${id}); use --surface to filter`);
  const config = parsed.string('config');
  const loaded = loadConfigOrExit(io, config ? { file: config } : {});
  if ('exit' in loaded) return loaded.exit;
  const opened = await openJournal(loaded.config);
  try {
    const json = parsed.flag('json');
    if (sub === 'list') {
      const rows = await opened.journal.list({ surface: parsed.string('surface') });
      if (json) io.stdout.write(`${JSON.stringify(rows.map(({ id: rid, surface, machine, startedAt, endedAt, steps }) => ({ id: rid, surface, machine, startedAt, endedAt, steps })))}\n`);
      else if (rows.length === 0) io.stdout.write('no recorded conversation (JOURNAL=on records them as they happen)\n');
      else {
        const width = Math.max(...rows.map((r) => r.id.length));
        io.stdout.write(`${rows.map((r) => summaryLine(r, width)).join('\n')}\n`);
      }
      return EXIT.ok;
    }
    const journal = await opened.journal.get(id!);
    if (!journal) {
      io.stderr.write(`palabre journal: no recorded conversation has the id ${JSON.stringify(id)}. \`palabre journal list\` prints the ids.\n`);
      return EXIT.usage;
    }
    io.stdout.write(json ? `${JSON.stringify(journal)}\n` : `${journalText(journal)}\n`);
    return EXIT.ok;
  } finally {
    await opened.close();
  }
}
