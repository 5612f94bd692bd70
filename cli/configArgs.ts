import { ConfigError } from '../core/config/load.js';
import { loadPalabreConfig, type PalabreConfig } from '../actors/palabreConfig.js';
import { EXIT, type CommandName } from './definitions.js';
import type { CliIo } from './io.js';
import { parseCommand, type ParsedArgs } from './parse.js';

/**
 * The arguments of a command that takes `[--config FILE]`, and the configuration they lead to.
 * Returns the exit code instead when there is nothing to run: help printed (0), bad arguments or
 * an invalid configuration, every bad key listed (2).
 */
export function configFromArgs(command: CommandName, args: string[], io: CliIo): { config: PalabreConfig; args: ParsedArgs } | { exit: number } {
  const parsed = parseCommand(command, args, io);
  if ('exit' in parsed) return parsed;
  const file = parsed.string('config');
  const loaded = loadConfigOrExit(io, file ? { file } : {});
  return 'exit' in loaded ? loaded : { config: loaded.config, args: parsed };
}

/** palabre's whole configuration with the command's environment; an invalid configuration prints every bad key and gives exit 2. */
export function loadConfigOrExit(io: CliIo, opts: { file?: string; env?: Record<string, string | undefined> } = {}): { config: PalabreConfig } | { exit: number } {
  try {
    return { config: loadPalabreConfig({ env: opts.env ?? io.env, ...(opts.file ? { file: opts.file } : {}) }) };
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr.write(`palabre: ${err.message}\n`);
      return { exit: EXIT.usage };
    }
    throw err;
  }
}
