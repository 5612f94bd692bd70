import type { CoreConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { Runtime } from '../runtime.js';
import type { Store } from '../store/sqlStore.js';
import { JournalRecorder } from './recorder.js';
import { JournalStore } from './store.js';

/** JOURNAL=on (the default): every conversation of `runtime` is recorded in `store` (SQLite: `dbFile` is its file, beside which the spill file is kept). */
export function startJournal(config: Pick<CoreConfig, 'JOURNAL' | 'JOURNAL_FLUSH_MS' | 'JOURNAL_RETENTION_DAYS'>, runtime: Runtime, store: Store, surfaceOf: Readonly<Record<string, string>>, logger?: Logger, dbFile?: string): JournalRecorder | undefined {
  if (config.JOURNAL !== 'on') return undefined;
  return new JournalRecorder(runtime, {
    store: new JournalStore(store, { file: dbFile }),
    // The surface that declared the machine kind (a kind no surface declared is filed under its own name).
    surfaceOf: (kind) => (Object.hasOwn(surfaceOf, kind) ? surfaceOf[kind]! : kind),
    flushMs: config.JOURNAL_FLUSH_MS,
    retentionDays: config.JOURNAL_RETENTION_DAYS,
    ...(logger ? { logger: logger.child({ component: 'journal' }) } : {}),
  }).start();
}
