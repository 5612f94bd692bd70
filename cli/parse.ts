import { parseArgs, type ParseArgsConfig } from 'node:util';
import { COMMAND_DEFS, EXIT, helpOf, type CommandDef, type CommandName } from './definitions.js';

/** Where parsing writes help and problems: a command's streams (CliIo, or token's narrower ones). */
export interface ParseIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

/** What a command reads from its arguments: strings and flags by option name, then positionals. */
export interface ParsedArgs {
  string(name: string): string | undefined;
  flag(name: string): boolean;
  positionals: string[];
}

/**
 * Parses `args` with node:util parseArgs against the command's definition (cli/definitions.ts).
 * `--help` prints the help and returns exit 0; unknown options or too many arguments print the
 * problem and the help on stderr and return exit 2.
 */
export function parseCommand(name: CommandName, args: string[], io: ParseIo, helpExtra?: string): ParsedArgs | { exit: number } {
  const def: CommandDef = COMMAND_DEFS[name];
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', short: 'h' } };
  for (const [key, o] of Object.entries(def.options)) options[key] = { type: o.type, ...(o.short ? { short: o.short } : {}) };
  let values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args, options, allowPositionals: def.positionals.max > 0, strict: true }));
  } catch (err) {
    io.stderr.write(`palabre ${name}: ${(err as Error).message}\n${helpOf(name, helpExtra)}\n`);
    return { exit: EXIT.usage };
  }
  if (values.help === true) {
    io.stdout.write(`${helpOf(name, helpExtra)}\n`);
    return { exit: EXIT.ok };
  }
  if (positionals.length > def.positionals.max) {
    io.stderr.write(`palabre ${name}: too many arguments (${positionals.join(' ')})\n${helpOf(name, helpExtra)}\n`);
    return { exit: EXIT.usage };
  }
  return {
    positionals,
    string: (key) => (typeof values[key] === 'string' ? values[key] : undefined),
    flag: (key) => values[key] === true,
  };
}

/** Prints a usage problem found after parsing (a missing value, a bad choice) and returns exit 2. */
export function usageError(name: CommandName, io: ParseIo, message: string): number {
  io.stderr.write(`palabre ${name}: ${message}\n${helpOf(name)}\n`);
  return EXIT.usage;
}
