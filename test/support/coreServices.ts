import type { PalabreConfig } from '../../actors/palabreConfig.js';
import type { Logger } from '../../core/log.js';
import type { Db } from '../../core/store/db.js';
import type { Store } from '../../core/store/sqlStore.js';
import { sqliteAppStore } from '../../core/store/appStore.js';
import { createAdminAuth, type AdminAuth } from '../../core/admin/adminAuth.js';
import { PORTABLE_MIGRATIONS } from './migrations.js';

/** The services core builds once per process, over a hand-built context's SQLite file. */
export function coreServicesFor(db: Db, config: PalabreConfig, logger: Logger): { store: Store; admin: AdminAuth } {
  const store = sqliteAppStore(db, PORTABLE_MIGRATIONS);
  return { store, admin: createAdminAuth({ db, store, config, logger }) };
}
