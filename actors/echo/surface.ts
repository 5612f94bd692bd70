import type { Surface } from '../../core/surfaceContract.js';
import { echoSocket, ECHO_PATH } from '../../transports/ws/echoSocket.js';
import { ECHO_MIGRATIONS, EchoStore } from './echoStore.js';
import { wireEcho } from './echoWiring.js';
import { echoConfig, type EchoConfig } from './echoConfig.js';

/**
 * The echo surface, composition root of the smallest conversation: its chart (machines/echo.ts),
 * its table, its configuration section (echoConfig.ts), its WebSocket edge
 * (transports/ws/echoSocket.ts: the edge takes a plain `maxText`, mapped here from
 * ECHO_MAX_TEXT), its health and its drain. The
 * template of a new surface (docs/architecture.md § Adding a surface); not in `npm start`'s list.
 */
export const echoSurface: Surface<EchoConfig> = {
  name: 'echo',
  machines: { echo: () => import('../../machines/echo.js').then((m) => m.echoMachine) },
  migrations: ECHO_MIGRATIONS,
  config: echoConfig,
  async start(ctx) {
    const store = new EchoStore(ctx.store);
    const socket = echoSocket({ runtime: ctx.runtime, logger: ctx.logger, maxText: ctx.config.ECHO_MAX_TEXT, wire: (send) => wireEcho(store, send) });
    return {
      sockets: { [ECHO_PATH]: socket.upgrade },
      health: async () => ({ ...socket.health(), total: await store.total() }),
      stop: () => socket.close(),
      urls: { socket: ECHO_PATH },
    };
  },
};
