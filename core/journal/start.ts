import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { Runtime } from '../runtime.js';
import type { Store } from '../store/sqlStore.js';
import { JournalRecorder } from './recorder.js';
import { JournalStore } from './store.js';

/** JOURNAL=on (the default): every conversation of `runtime` is recorded in `store`. */
export function startJournal(config: Pick<Config, 'JOURNAL' | 'JOURNAL_RETENTION_DAYS'>, runtime: Runtime, store: Store, surfaceOf: Readonly<Record<string, string>>, logger?: Logger): JournalRecorder | undefined {
  if (config.JOURNAL !== 'on') return undefined;
  return new JournalRecorder(runtime, {
    store: new JournalStore(store),
    // The surface that declared the machine kind (a kind no surface declared is filed under its own name).
    surfaceOf: (kind) => (Object.hasOwn(surfaceOf, kind) ? surfaceOf[kind]! : kind),
    retentionDays: config.JOURNAL_RETENTION_DAYS,
    ...(logger ? { logger: logger.child({ component: 'journal' }) } : {}),
  }).start();
}
