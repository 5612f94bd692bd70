import { z } from 'zod';
import { configSection } from '../section.js';
import { ms, nonNegativeInt, port } from '../keyTypes.js';

/**
 * express `trust proxy`: a number is the count of proxies in front (the address is taken that many
 * hops from the right of X-Forwarded-For, so a client cannot choose it); `true` trusts every hop.
 */
const trustProxy = z
  .union([z.boolean(), z.number().int().min(0), z.string().regex(/^\s*(true|false|yes|no|\d+)\s*$/, 'expected true, false or a hop count (e.g. 1)')])
  .transform((v): boolean | number => {
    if (typeof v !== 'string') return v === 0 ? false : v;
    const t = v.trim();
    if (/^\d+$/.test(t)) return Number(t) === 0 ? false : Number(t);
    return t === 'true' || t === 'yes';
  });

/** Process-wide settings: HTTP, MQTT, storage, logs, the journal, admin login and candidate tokens. */
export const coreSection = configSection({
  title: 'Process (HTTP, MQTT, storage, logs)',
  secrets: ['DATABASE_URL', 'ADMIN_PASSWORD', 'SESSION_SECRET', 'JWT_SECRET'],
  shape: {
    HOST: z.string().default('127.0.0.1').describe('Interface the HTTP server listens on'),
    PORT: port.default(3000).describe('HTTP port of `palabre serve`'),
    PUBLIC_URL: z.string().url().optional().describe('Base URL printed and used in links (default http://HOST:PORT)'),
    MQTT_URL: z.string().url().optional().describe('External MQTT broker (mqtt://host:port); unset = embedded broker'),
    MQTT_EMBEDDED_PORT: port.default(1883).describe('Port of the embedded MQTT broker (aedes) when MQTT_URL is unset'),
    MQTT_EMBEDDED_HOST: z.string().default('127.0.0.1').describe('Interface of the embedded MQTT broker'),
    DATA_DIR: z.string().default('data').describe('Folder for the SQLite file, recordings and indexes'),
    DB_PATH: z.string().optional().describe('SQLite file (default DATA_DIR/palabre.db)'),
    INSTANCE_ID: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, . _ - (64 at most)').optional()
      .describe('Name of this instance in /healthz and in the T2 rows it writes; several instances on one database need distinct names (default: the host name)'),
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'expected postgres://user:password@host:port/database').optional()
      .describe('Postgres for the shared stores (corrections, T2 subjects and sessions, chat configuration, admin sessions, login throttle), so several instances behave as one; unset = the SQLite file'),
    PALABRE_CACHE_DIR: z.string().optional().describe('Machine-wide cache of the offline engines: Grammalecte\'s Python core for corrections, the docs assistant\'s dictionaries; `npm install` fills it (default $XDG_CACHE_HOME/palabre, else ~/.cache/palabre)'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino log level'),
    LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto')
      .describe('Logs on stdout: `auto` = short coloured lines on a terminal, JSON lines otherwise; `json` or `pretty` to force one (LOG_FILE is always JSON)'),
    LOG_FILE: z.string().optional().describe('Write JSON logs to this file instead of stdout (a new file is created readable by its owner only, 0600)'),
    SHUTDOWN_TIMEOUT_MS: ms.default(5000).describe('Graceful shutdown deadline'),
    SURFACES: z.string().regex(/^\s*(all|none|[a-z0-9_-]+(\s*,\s*[a-z0-9_-]+)*)\s*$/, 'expected `all`, `none` or a comma list of surface names').default('all')
      .describe('Surfaces `palabre serve` starts: `all`, `none`, or a comma list of names (e.g. `docs,t2`)'),
    JOURNAL: z.enum(['on', 'off']).default('on')
      .describe('Record every conversation (events in, actions, state after each step) in the store, for `palabre journal` and `palabre replay` (docs/journal.md)'),
    JOURNAL_FLUSH_MS: ms.min(10).default(1000).describe('How often recorded steps are written in one batch; a step whose effect leaves the process is written before that effect, whatever this is (docs/journal.md)'),
    JOURNAL_RETENTION_DAYS: nonNegativeInt.default(30).describe('Recorded conversations whose last step is older than this many days are deleted (0 = kept forever)'),
    ADMIN_PASSWORD: z.string().min(8).optional().describe('Admin login for /admin and /inspect (unset = admin pages disabled)'),
    SESSION_SECRET: z.string().min(16).optional().describe('Cookie signing secret (default: random per process)'),
    JWT_SECRET: z.string().min(16).optional().describe('HS256 secret for candidate tokens (default: a dev secret in DATA_DIR)'),
    JWT_JWKS_URL: z.string().url().optional().describe('JWKS URL to verify RS256/ES256 tokens instead of JWT_SECRET'),
    JWT_ISSUER: z.string().optional().describe('Expected `iss` of candidate tokens'),
    JWT_MAX_TTL_S: z.coerce.number().int().positive().default(43200)
      .describe('Longest accepted candidate token lifetime, seconds (`exp` − `iat`); tokens without `exp` are refused'),
    TRUST_PROXY: trustProxy.default(false)
      .describe('Honour X-Forwarded-*: a hop count (`1` = one reverse proxy in front, recommended) or `true` (trust every hop: the client picks its address)'),
  },
});
