import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/index.js';
import { migrate, openStore } from '../../core/store/db.js';
import { CORRECTION_MIGRATIONS, CorrectionStore } from '../../actors/corrections/store.js';
import { autreReview, candidatePatterns, AUTRE_MIN, PATTERN_MIN, PATTERN_WINDOW } from '../../actors/corrections/patterns.js';
import { EXIT, processIo, type CliIo } from '../io.js';

const USAGE = `usage: palabre patterns --candidate ID [--json]
       palabre patterns --autre [--json]
  --candidate ID  the candidate's confirmed error patterns (a code in ≥ ${PATTERN_MIN} of their last ${PATTERN_WINDOW} productions)
  --autre         recurring « autre » descriptions (≥ ${AUTRE_MIN}, grouped by similarity) to review for new taxonomy codes`;

/** Reads the corrections store (DB_PATH or DATA_DIR/palabre.db) and prints patterns. */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  let values: { candidate?: string; autre?: boolean; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({ args, options: { candidate: { type: 'string' }, autre: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return EXIT.usage;
  }
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  if (!values.candidate === !values.autre) {
    io.stderr.write(`give --candidate ID or --autre\n${USAGE}\n`);
    return EXIT.usage;
  }
  let config;
  try {
    config = loadConfig({ env: io.env });
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n`);
    return EXIT.usage;
  }
  const db = openStore({ path: config.DB_PATH ?? join(config.DATA_DIR, 'palabre.db') });
  try {
    migrate(db, CORRECTION_MIGRATIONS);
    const store = new CorrectionStore(db);
    if (values.candidate) {
      const p = candidatePatterns(store, values.candidate);
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
    const groups = autreReview(store);
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
    db.close();
  }
}
