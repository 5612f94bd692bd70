import { join } from 'node:path';
import { JournalStore } from '../core/journal/store.js';
import { openAppStore } from '../core/store/appStore.js';
import { openStore } from '../core/store/db.js';
import { allMigrations } from '../actors/serve.js';
import type { PalabreConfig } from '../actors/palabreConfig.js';

/** The journal of this instance's store (DATABASE_URL, else DB_PATH or DATA_DIR/palabre.db), for one command. */
export async function openJournal(config: PalabreConfig): Promise<{ journal: JournalStore; close(): Promise<void> }> {
  const file = config.DB_PATH ?? join(config.DATA_DIR, 'palabre.db');
  const db = openStore({ path: file });
  const port = await openAppStore({ databaseUrl: config.DATABASE_URL, db, migrations: await allMigrations() });
  return {
    // With its file: what a killed `palabre serve` left in its spill file is read too (core/journal/spill.ts).
    journal: new JournalStore(port, { file }),
    async close() {
      await port.close();
      db.close();
    },
  };
}
