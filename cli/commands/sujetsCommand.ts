import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { dbPathOf } from '../../core/app.js';
import { openStore } from '../../core/store/db.js';
import { openAppStore } from '../../core/store/appStore.js';
import { allMigrations } from '../../actors/serve.js';
import { SEED_SUBJECTS } from '../../actors/t2/seedSubjects.js';
import { SubjectStore } from '../../actors/t2/subjects.js';
import { loadConfigOrExit } from '../configArgs.js';
import { processIo, type CliIo } from '../io.js';
import { EXIT } from '../definitions.js';
import { parseCommand, usageError } from '../parse.js';

/** `palabre sujets`: the T2 subjects in the store (seeded with the 9 built-in ones): Postgres with DATABASE_URL. */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  const parsed = parseCommand('sujets', args, io);
  if ('exit' in parsed) return parsed.exit;
  const [verb = 'list', file] = parsed.positionals;
  if (verb !== 'list' && verb !== 'add') return usageError('sujets', io, `unknown action "${verb}" (list or add)`);
  if (verb === 'add' && !file) return usageError('sujets', io, 'add needs a FILE.json');
  if (verb === 'list' && file) return usageError('sujets', io, 'list takes no file');
  const loaded = loadConfigOrExit(io);
  if ('exit' in loaded) return loaded.exit;
  const { config } = loaded;
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
  const appStore = await openAppStore({ databaseUrl: config.DATABASE_URL, db, migrations: await allMigrations() }).catch((e: unknown) => {
    db.close();
    throw e;
  });
  try {
    const store = new SubjectStore(appStore);
    await store.seed(SEED_SUBJECTS);
    if (verb === 'list') {
      for (const s of await store.list()) io.stdout.write(`${s.id}\t${s.titre}\t${s.factSheet.length} faits\n`);
      return EXIT.ok;
    }
    try {
      const added = await store.add(input);
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
    await appStore.close();
    db.close();
  }
}
