import { join } from 'node:path';
import { JournalStore } from '../core/journal/index.js';
import { openAppStore } from '../core/store/appStore.js';
import { openStore } from '../core/store/db.js';
import { allMigrations } from '../actors/serve.js';
import type { Config } from '../core/config/index.js';

/** The journal of this instance's store (DATABASE_URL, else DB_PATH or DATA_DIR/palabre.db), for one command. */
export async function openJournal(config: Config): Promise<{ journal: JournalStore; close(): Promise<void> }> {
  const db = openStore({ path: config.DB_PATH ?? join(config.DATA_DIR, 'palabre.db') });
  const port = await openAppStore({ databaseUrl: config.DATABASE_URL, db, migrations: await allMigrations() });
  return {
    journal: new JournalStore(port),
    async close() {
      await port.close();
      db.close();
    },
  };
}
