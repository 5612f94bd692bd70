import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { createAuth, PLANS, type Plan } from '../../core/auth.js';
import { pino } from 'pino';
import { createLogger } from '../../core/log.js';
import { EXIT } from '../definitions.js';
import { parseCommand, usageError } from '../parse.js';

export interface CommandIo {
  stdout?: { write(s: string): unknown };
  stderr?: { write(s: string): unknown };
  env?: Record<string, string | undefined>;
}

/** `palabre token --sub ID --plan free|premium`: mints a candidate token for local testing. */
export async function run(args: string[], io: CommandIo = {}): Promise<number> {
  const out = io.stdout ?? process.stdout;
  const err = io.stderr ?? process.stderr;
  const cli = { stdout: out, stderr: err };
  const parsed = parseCommand('token', args, cli);
  if ('exit' in parsed) return parsed.exit;
  const sub = parsed.string('sub');
  const plan = parsed.string('plan') ?? 'free';
  const ttl = parsed.string('ttl') ?? '12h';
  if (!sub) return usageError('token', cli, '--sub is required');
  if (!PLANS.includes(plan as Plan)) return usageError('token', cli, '--plan must be free or premium');
  const config = loadPalabreConfig(io.env ? { env: io.env, dotenvPath: null } : {});
  // Logs go to stderr so that `$(palabre token …)` captures the token alone.
  const logger = createLogger({ level: 'warn', destination: pino.destination({ dest: 2, sync: true }) });
  try {
    const auth = createAuth(config, { logger });
    const token = await auth.mintToken({ sub, plan: plan as Plan, ttl });
    out.write(`${token}\n`);
    return EXIT.ok;
  } catch (e) {
    err.write(`${(e as Error).message}\n`);
    return EXIT.failure;
  }
}
