import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { Runtime } from '../runtime.js';
import type { Store } from '../store/sqlStore.js';
import { JournalRecorder } from './recorder.js';
import { JournalStore } from './store.js';

/** The surface a machine kind belongs to, where the names differ (docs/journal.md lists them). */
const SURFACE_OF: Readonly<Record<string, string>> = { chat: 'docs', t2live: 't2', correction: 'corrections' };

/** JOURNAL=on (the default): every conversation of `runtime` is recorded in `store` (SQLite: `dbFile` is its file, beside which the spill file is kept). */
export function startJournal(config: Pick<Config, 'JOURNAL' | 'JOURNAL_FLUSH_MS' | 'JOURNAL_RETENTION_DAYS'>, runtime: Runtime, store: Store, logger?: Logger, dbFile?: string): JournalRecorder | undefined {
  if (config.JOURNAL !== 'on') return undefined;
  return new JournalRecorder(runtime, {
    store: new JournalStore(store, { file: dbFile }),
    surfaceOf: (kind) => SURFACE_OF[kind] ?? kind,
    flushMs: config.JOURNAL_FLUSH_MS,
    retentionDays: config.JOURNAL_RETENTION_DAYS,
    ...(logger ? { logger: logger.child({ component: 'journal' }) } : {}),
  }).start();
}
