import { join } from 'node:path';
import { openStore } from '../../core/store/db.js';
import { openAppStore } from '../../core/store/appStore.js';
import { allMigrations } from '../../actors/serve.js';
import { CorrectionStore } from '../../actors/corrections/correctionsStore.js';
import { autreReview, candidatePatterns, AUTRE_MIN, PATTERN_MIN, PATTERN_WINDOW } from '../../actors/corrections/patterns.js';
import { loadConfigOrExit } from '../configArgs.js';
import { processIo, type CliIo } from '../io.js';
import { EXIT } from '../definitions.js';
import { parseCommand, usageError } from '../parse.js';

const WINDOW_NOTE = `A pattern: a code in ≥ ${PATTERN_MIN} of the candidate's last ${PATTERN_WINDOW} productions; --autre lists descriptions seen ≥ ${AUTRE_MIN} times.`;

/** Reads the corrections store (DATABASE_URL, else DB_PATH or DATA_DIR/palabre.db) and prints patterns. */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  const parsed = parseCommand('patterns', args, io, WINDOW_NOTE);
  if ('exit' in parsed) return parsed.exit;
  const values = { candidate: parsed.string('candidate'), autre: parsed.flag('autre'), json: parsed.flag('json') };
  if (!values.candidate === !values.autre) return usageError('patterns', io, 'give --candidate ID or --autre');
  const loaded = loadConfigOrExit(io);
  if ('exit' in loaded) return loaded.exit;
  const { config } = loaded;
  const db = openStore({ path: config.DB_PATH ?? join(config.DATA_DIR, 'palabre.db') });
  const port = await openAppStore({ databaseUrl: config.DATABASE_URL, db, migrations: await allMigrations() });
  try {
    const store = new CorrectionStore(port);
    if (values.candidate) {
      const p = await candidatePatterns(store, values.candidate);
      if (values.json) {
        io.stdout.write(`${JSON.stringify(p)}\n`);
        return EXIT.ok;
      }
      io.stdout.write(`candidate ${p.candidateId}: ${p.productions} production(s) in the window of ${p.window}\n`);
      if (p.counts.length === 0) io.stdout.write('no error codes yet\n');
      for (const c of p.counts) {
        const mark = c.productions >= p.threshold ? 'PATTERN' : '       ';
        io.stdout.write(`${mark}  ${String(c.productions).padStart(1)}/${p.productions}  ${c.code.padEnd(28)} ${c.critere.padEnd(24)} ${c.description ?? ''}\n`);
      }
      return EXIT.ok;
    }
    const groups = await autreReview(store);
    if (values.json) {
      io.stdout.write(`${JSON.stringify(groups)}\n`);
      return EXIT.ok;
    }
    if (groups.length === 0) io.stdout.write(`no « autre » description recurs ${AUTRE_MIN} times or more\n`);
    for (const g of groups) {
      io.stdout.write(`${String(g.count).padStart(3)}×  ${g.critere.padEnd(24)} ${g.representative}\n`);
      for (const ex of g.examples.filter((e) => e !== g.representative)) io.stdout.write(`       ~ ${ex}\n`);
    }
    return EXIT.ok;
  } finally {
    await port.close();
    db.close();
  }
}
