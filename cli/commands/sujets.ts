import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { dbPathOf } from '../../core/app.js';
import { ConfigError, loadConfig } from '../../core/config/index.js';
import { migrate, openStore } from '../../core/store/db.js';
import { SEED_SUBJECTS } from '../../actors/t2/seedSubjects.js';
import { SubjectStore, t2Migrations } from '../../actors/t2/subjects.js';
import { EXIT, processIo, type CliIo } from '../io.js';

const USAGE = `usage: palabre sujets [list]          List the T2 subjects (EO_T2)
       palabre sujets add FILE.json   Add (or replace, same id) a subject from a JSON file
A subject: {"id"?, "titre", "consigne", "contexte", "role", "factSheet": [{"theme", "keywords": [...], "answer"}, ...]}
(tache = EO_T2 and mode = entrainement are implied). See docs/t2-live.md.`;

/** `palabre sujets`: the T2 subjects in the store (seeded with the 9 built-in ones). */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  const [verb = 'list', file, ...rest] = args;
  if (verb === '--help' || verb === '-h') {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  if (!['list', 'add'].includes(verb) || rest.length > 0 || (verb === 'add' && !file) || (verb === 'list' && file)) {
    io.stderr.write(`${USAGE}\n`);
    return EXIT.usage;
  }
  let config;
  try {
    config = loadConfig({ env: io.env });
  } catch (e) {
    io.stderr.write(`${e instanceof ConfigError ? e.message : (e as Error).message}\n`);
    return EXIT.usage;
  }
  let input: unknown;
  if (verb === 'add') {
    try {
      input = JSON.parse(readFileSync(file!, 'utf8'));
    } catch (e) {
      io.stderr.write(`${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
      return EXIT.failure;
    }
  }
  const db = openStore({ path: dbPathOf(config) });
  try {
    migrate(db, t2Migrations);
    const store = new SubjectStore(db);
    store.seed(SEED_SUBJECTS);
    if (verb === 'list') {
      for (const s of store.list()) io.stdout.write(`${s.id}\t${s.titre}\t${s.factSheet.length} faits\n`);
      return EXIT.ok;
    }
    try {
      const added = store.add(input);
      io.stdout.write(`added ${added.id} (${added.titre}, ${added.factSheet.length} faits)\n`);
      return EXIT.ok;
    } catch (e) {
      if (e instanceof z.ZodError) {
        io.stderr.write(`${file}: invalid subject\n${e.issues.map((i) => `  - ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n')}\n`);
        return EXIT.usage;
      }
      throw e;
    }
  } finally {
    db.close();
  }
}
