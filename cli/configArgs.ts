import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../core/config/index.js';
import { EXIT, type CliIo } from './io.js';

/**
 * The arguments every long-running command takes (`[--config FILE] [--help]`) and the
 * configuration they lead to. Returns the exit code instead when there is nothing to run: help
 * printed (0), bad arguments or an invalid configuration, every bad key listed (2).
 */
export function configFromArgs(command: string, args: string[], io: CliIo, usage: string): { config: Config } | { exit: number } {
  let values: { config?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ args, options: { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }));
  } catch (err) {
    io.stderr.write(`palabre ${command}: ${(err as Error).message}\n${usage}\n`);
    return { exit: EXIT.usage };
  }
  if (values.help) {
    io.stdout.write(`${usage}\n`);
    return { exit: EXIT.ok };
  }
  try {
    return { config: loadConfig({ env: io.env, ...(values.config ? { file: values.config } : {}) }) };
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr.write(`palabre: ${err.message}\n`);
      return { exit: EXIT.usage };
    }
    throw err;
  }
}
