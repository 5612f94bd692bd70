import type { PalabreConfig } from '../../actors/palabreConfig.js';
import type { Logger } from '../../core/log.js';
import type { Db } from '../../core/store/db.js';
import type { Store } from '../../core/store/sqlStore.js';
import { sqliteAppStore } from '../../core/store/appStore.js';
import { createAdminAuth, type AdminAuth } from '../../core/admin/adminAuth.js';
import { createMqttService, type MqttService } from '../../core/mqtt/service.js';
import { createAuth, type Authenticator } from '../../core/auth.js';
import { EngineSet } from '../../core/sharedEngines.js';
import { PORTABLE_MIGRATIONS } from './migrations.js';

/**
 * The services core builds once per process, over a hand-built context's SQLite file. Its MQTT
 * service names a port nothing listens on: the surfaces these contexts start never connect.
 */
export function coreServicesFor(db: Db, config: PalabreConfig, logger: Logger): { store: Store; admin: AdminAuth; auth: Authenticator; mqtt: MqttService; engines: EngineSet } {
  const store = sqliteAppStore(db, PORTABLE_MIGRATIONS);
  return { store, admin: createAdminAuth({ db, store, config, logger }), auth: createAuth(config, { logger }), engines: new EngineSet(logger), mqtt: createMqttService({ url: 'mqtt://127.0.0.1:1', logger }) };
}
