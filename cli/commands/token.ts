import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/index.js';
import { createAuth, PLANS, type Plan } from '../../core/auth.js';
import { pino } from 'pino';
import { createLogger } from '../../core/log.js';

export interface CommandIo {
  stdout?: { write(s: string): unknown };
  stderr?: { write(s: string): unknown };
  env?: Record<string, string | undefined>;
}

const USAGE = `usage: palabre token --sub ID [--plan free|premium] [--ttl 12h]
Prints a development JWT signed with JWT_SECRET (or the dev secret in DATA_DIR).`;

/** `palabre token --sub ID --plan free|premium`: mints a candidate token for local testing. */
export async function run(args: string[], io: CommandIo = {}): Promise<number> {
  const out = io.stdout ?? process.stdout;
  const err = io.stderr ?? process.stderr;
  let values: { sub?: string; plan?: string; ttl?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: { sub: { type: 'string' }, plan: { type: 'string', default: 'free' }, ttl: { type: 'string', default: '12h' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (e) {
    err.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    out.write(`${USAGE}\n`);
    return 0;
  }
  if (!values.sub) {
    err.write(`--sub is required\n${USAGE}\n`);
    return 2;
  }
  if (!PLANS.includes(values.plan as Plan)) {
    err.write(`--plan must be free or premium\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig(io.env ? { env: io.env, dotenvPath: null } : {});
  // Logs go to stderr so that `$(palabre token …)` captures the token alone.
  const logger = createLogger({ level: 'warn', destination: pino.destination({ dest: 2, sync: true }) });
  try {
    const auth = createAuth(config, { logger });
    const token = await auth.mintToken({ sub: values.sub, plan: values.plan as Plan, ttl: values.ttl ?? '12h' });
    out.write(`${token}\n`);
    return 0;
  } catch (e) {
    err.write(`${(e as Error).message}\n`);
    return 1;
  }
}
