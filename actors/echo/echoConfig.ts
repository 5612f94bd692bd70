import { configSection, type ConfigValues } from '../../core/config/section.js';
import { positiveInt } from '../../core/config/keyTypes.js';

/**
 * The echo surface's section: the template of a surface's own keys (docs/architecture.md § Adding
 * a surface). Its own module, zod only: `actors/surfaces.ts` carries it eagerly while the surface's
 * code stays unloaded.
 */
export const echoConfig = configSection({
  title: 'Echo (example surface; tests start it, `npm start` does not)',
  shape: {
    ECHO_MAX_TEXT: positiveInt.max(1000).default(1000).describe('Longest text of a `say` frame on /echo/ws, in characters; a longer one gets a `bad_frame` error'),
  },
});

export type EchoConfig = ConfigValues<typeof echoConfig>;
