import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { COMMAND_DEFS, DEFAULT_COMMAND, EXIT } from './definitions.js';
import { processIo, type CliIo } from './io.js';

/**
 * `palabre <command> [args]`. Commands live in `cli/commands/<file>.ts` and are imported only
 * when called: this file stays free of heavy imports so that `palabre skull` on a Pi loads the
 * Skull service and nothing of the web server.
 */
interface CommandModule {
  run(args: string[], io?: CliIo): Promise<number>;
}

interface CommandEntry {
  file: string;
  usage: string;
  summary: string;
}

/** The fixed command table, from cli/definitions.ts. A command whose file is not in this build says so and exits 2. */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = Object.fromEntries(
  Object.entries(COMMAND_DEFS).map(([name, d]) => [name, { file: d.file, usage: d.usage[0]!, summary: d.summary }]),
);

async function readVersion(): Promise<string> {
  const { VERSION } = await import('../core/version.js');
  return VERSION;
}

function helpText(version: string): string {
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.usage.length));
  const lines = Object.values(COMMANDS).map((c) => `  palabre ${c.usage.padEnd(width)}  ${c.summary}`);
  return [
    `palabre ${version} — AI conversations as XState statecharts`,
    '',
    'Usage:',
    ...lines,
    `  palabre ${'help'.padEnd(width)}  This text (also --help)`,
    `  palabre ${'--version'.padEnd(width)}  Print the version`,
    '',
    'Each command: `palabre COMMAND --help` (options and exit codes; all of them in docs/cli.md).',
    'Configuration: environment variables, .env, or a JSON file named by PALABRE_CONFIG (see README).',
    '',
  ].join('\n');
}

/** True when the error says the command's own file is missing (not one of its imports). */
function isMissingCommandFile(err: unknown, file: string): boolean {
  const e = err as { code?: string; message?: string; url?: string };
  if (e?.code !== 'ERR_MODULE_NOT_FOUND') return false;
  const text = `${e.message ?? ''} ${e.url ?? ''}`;
  return text.includes(`commands/${file}.`) || text.includes(`commands\\${file}.`);
}

/** The command module `cli/commands/<file>`, or undefined when that file is not in this build. */
export async function loadCommand(file: string): Promise<CommandModule | undefined> {
  try {
    // A plain variable, not a template literal: bundlers (vite in tests) would otherwise turn the
    // import into a fixed glob of the files present at build time.
    const specifier = './commands/' + file + '.js';
    return (await import(specifier)) as CommandModule;
  } catch (err) {
    if (isMissingCommandFile(err, file)) return undefined;
    throw err;
  }
}

export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v' || first === 'version') {
    io.stdout.write(`${await readVersion()}\n`);
    return EXIT.ok;
  }
  if (first === 'help' || first === '--help' || first === '-h') {
    io.stdout.write(helpText(await readVersion()));
    return EXIT.ok;
  }
  // `palabre` and `palabre --some-flag` run the default command with those flags.
  const name = first === undefined || first.startsWith('-') ? DEFAULT_COMMAND : first;
  const args = name === first ? rest : argv;
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    io.stderr.write(`palabre: unknown command "${name}". Run \`palabre help\` for the list.\n`);
    return EXIT.usage;
  }
  const mod = await loadCommand(entry.file);
  if (!mod) {
    io.stderr.write(`palabre: "${name}" is not available in this build.\n`);
    return EXIT.usage;
  }
  return mod.run(args, io);
}

/**
 * Exit with the command's code. The unref'd timer lets the process end on its own when nothing is
 * left running, and ends it anyway if a forgotten handle would keep it alive.
 */
export function exitWith(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 200).unref();
}

// Run when this file is the entry point (`node --import tsx cli/main.ts serve`, or dist/cli/main.js).
function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main(process.argv.slice(2)).then(exitWith, (err: unknown) => {
    process.stderr.write(`palabre: ${err instanceof Error ? err.message : String(err)}\n`);
    exitWith(EXIT.failure);
  });
}
