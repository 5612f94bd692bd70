/**
 * Every command's definition in one place: synopsis, options (with their help), positionals and
 * exit codes. `cli/main.ts` builds its table and `palabre help` from it, each command parses its
 * arguments with it (cli/parse.ts), and `npm run docs:cli` writes docs/cli.md from it, so that the
 * help, the parsing and the documented exit codes cannot disagree.
 *
 * This file imports nothing: `cli/main.ts` loads it for every command, `palabre skull` on a Pi too.
 */

interface OptionDef {
  type: 'string' | 'boolean';
  short?: string;
  /** Placeholder shown in help for a string option (`--k N`). */
  value?: string;
  help: string;
}

export interface CommandDef {
  /** The file under cli/commands/ (without extension). */
  file: string;
  /** Synopsis lines, each after `palabre `. The first is the one listed by `palabre help`. */
  usage: string[];
  summary: string;
  /** Sentences printed under the synopsis by `--help`. */
  description: string;
  options: Record<string, OptionDef>;
  /** Positional arguments accepted: none, or at most `max` (Infinity = any number). */
  positionals: { max: number; help?: string };
  /** Exit code → when it happens. Every command documents 0 and 2. */
  exits: Record<number, string>;
}

/** Exit codes shared by every command (cli/io.ts re-exports them). */
export const EXIT = { ok: 0, failure: 1, usage: 2, refused: 3 } as const;

const USAGE_EXIT = 'bad arguments or an invalid configuration (the message lists every bad key)';
const CONFIG_OPTION: OptionDef = { type: 'string', value: 'FILE', help: 'JSON configuration file (same keys as the environment; default PALABRE_CONFIG)' };

export const COMMAND_DEFS = {
  serve: {
    file: 'serveCommand',
    usage: ['serve [--config FILE]'],
    summary: 'Every surface in one process: HTTP, embedded MQTT broker, SQLite (default command)',
    description: 'Runs every surface in one process (what `npm start` runs). Configuration: environment, .env, JSON file (--config or PALABRE_CONFIG). ' +
      'On a terminal the logs are short coloured lines; JSON lines otherwise (LOG_FORMAT).',
    options: { config: CONFIG_OPTION },
    positionals: { max: 0 },
    exits: {
      0: 'stopped cleanly after Ctrl-C (SIGINT) or SIGTERM',
      1: 'a surface failed to start, the shutdown deadline (SHUTDOWN_TIMEOUT_MS) was reached, or an unexpected error',
      2: `${USAGE_EXIT}, or a port already in use (the message names the variable to change)`,
    },
  },
  skull: {
    file: 'skullCommand',
    usage: ['skull [--config FILE]'],
    summary: 'The Skull MQTT assistant alone (light enough for a Raspberry Pi)',
    description: 'Runs the Skull MQTT assistant alone (no web server, no corpus): against MQTT_URL, or an embedded broker on ' +
      'MQTT_EMBEDDED_HOST:MQTT_EMBEDDED_PORT when MQTT_URL is unset. Logs go to SKULL_LOG_FILE (else LOG_FILE, else stdout).',
    options: { config: CONFIG_OPTION },
    positionals: { max: 0 },
    exits: {
      0: 'stopped cleanly after Ctrl-C (SIGINT) or SIGTERM',
      1: 'an unexpected error',
      2: `${USAGE_EXIT}, or the embedded broker's port already in use`,
    },
  },
  index: {
    file: 'indexCommand',
    usage: ['index [DIR] [--json]'],
    summary: 'Build the docs assistant\'s retrieval index of a folder (remembered for ask and serve)',
    description: 'Builds (or updates) the docs assistant\'s index of DIR (default: CORPUS_DIR, else the folder indexed last, else docs/) under DATA_DIR. ' +
      'While CORPUS_DIR is unset, DIR becomes the corpus `palabre ask` and `palabre serve` use. ' +
      'A progress bar on a terminal; JSON progress lines when stdout is not a TTY or with --json.',
    options: { json: { type: 'boolean', help: 'JSON progress and summary lines, even on a terminal' } },
    positionals: { max: 1, help: 'DIR: a folder of Markdown, MDX or text files' },
    exits: {
      0: 'indexed',
      1: 'no Markdown, MDX or text file under DIR, or indexing failed',
      2: USAGE_EXIT,
    },
  },
  ask: {
    file: 'askCommand',
    usage: ['ask "QUESTION" [--corpus DIR] [--k N] [--threshold X] [--json]'],
    summary: 'Ask the docs assistant from the terminal',
    description: 'Answers from the docs (--corpus, else CORPUS_DIR, else the folder `palabre index` indexed last, else docs/) with sources; ' +
      'streams the answer as it comes.',
    options: {
      corpus: { type: 'string', value: 'DIR', help: 'answer from this folder (indexed first if needed)' },
      k: { type: 'string', value: 'N', help: 'passages retrieved (CHAT_TOP_K)' },
      threshold: { type: 'string', value: 'X', help: 'out-of-scope score threshold, 0–1 (CHAT_SCORE_THRESHOLD)' },
      json: { type: 'boolean', help: 'print the whole answer as one JSON object' },
    },
    positionals: { max: Infinity, help: 'QUESTION: the words of the question (quote it)' },
    exits: {
      0: 'answered',
      1: 'the answer failed (the provider could not be reached; the message says why)',
      2: USAGE_EXIT,
      3: 'refused: the documentation does not cover the question (« Cette information n\'est pas dans la documentation. »)',
    },
  },
  doctor: {
    file: 'doctorCommand',
    usage: ['doctor [--config FILE] [--json]'],
    summary: 'Check this machine: Node, data folder, ports, MQTT, engines, providers and keys, corpus',
    description: 'Checks what each configured surface needs and prints one line per check, ✓ ok, ✗ missing (with the fix), ' +
      '! optional and missing, ? not checked. Keys are reported as set or unset, never printed.',
    options: { config: CONFIG_OPTION, json: { type: 'boolean', help: 'one JSON object (checks with status, detail and fix) for scripts' } },
    positionals: { max: 0 },
    exits: {
      0: 'everything the configured surfaces need is there (optional items may be missing)',
      1: 'something a configured surface needs is missing (the ✗ lines say what to do)',
      2: USAGE_EXIT,
    },
  },
  token: {
    file: 'tokenCommand',
    usage: ['token --sub ID [--plan free|premium] [--ttl 12h]'],
    summary: 'Mint a development JWT for a candidate',
    description: 'Prints a development JWT signed with JWT_SECRET (or the dev secret in DATA_DIR).',
    options: {
      sub: { type: 'string', value: 'ID', help: 'the candidate id (required)' },
      plan: { type: 'string', value: 'PLAN', help: '`free` (default) or `premium`' },
      ttl: { type: 'string', value: 'TTL', help: 'lifetime, e.g. 12h (default), 30m, 7d' },
    },
    positionals: { max: 0 },
    exits: { 0: 'the token is printed', 1: 'the token could not be signed (the message says why)', 2: USAGE_EXIT },
  },
  machines: {
    file: 'machinesCommand',
    usage: ['machines [--format json|mermaid|scxml|svg] [--out DIR] [NAME…]'],
    summary: 'Export the statecharts',
    description: 'Exports the registered statecharts (all of them when no NAME is given). With --out, writes one file per machine ' +
      '(<name>.json|.mmd|.scxml|.svg) instead of printing.',
    options: {
      format: { type: 'string', short: 'f', value: 'FORMAT', help: '`json` (default), `mermaid`, `scxml` or `svg`' },
      out: { type: 'string', short: 'o', value: 'DIR', help: 'write files into DIR' },
    },
    positionals: { max: Infinity, help: 'NAME: a machine name' },
    exits: { 0: 'exported', 2: `bad arguments: an unknown format or machine name` },
  },
  sujets: {
    file: 'sujetsCommand',
    usage: ['sujets [list]', 'sujets add FILE.json'],
    summary: 'List or add the T2 role-play subjects',
    description: 'Lists the T2 subjects (EO_T2), or adds (replaces, same id) a subject from a JSON file: ' +
      '{"id"?, "titre", "consigne", "contexte", "role", "factSheet": [{"theme", "keywords": [...], "answer"}, ...]} ' +
      '(tache = EO_T2 and mode = entrainement are implied). See docs/t2-live.md.',
    options: {},
    positionals: { max: 2, help: '`list` (default), or `add` and a JSON file' },
    exits: { 0: 'listed or added', 1: 'FILE.json cannot be read or is not JSON', 2: `${USAGE_EXIT}, or an invalid subject (every problem listed)` },
  },
  patterns: {
    file: 'patternsCommand',
    usage: ['patterns --candidate ID [--json]', 'patterns --autre [--json]'],
    summary: 'A candidate\'s recurring error patterns (or --autre)',
    description: 'Reads the corrections store (DB_PATH or DATA_DIR/palabre.db): a candidate\'s confirmed error patterns, ' +
      'or the recurring « autre » descriptions to review for new taxonomy codes.',
    options: {
      candidate: { type: 'string', value: 'ID', help: 'the candidate whose patterns to print' },
      autre: { type: 'boolean', help: 'recurring « autre » descriptions, grouped by similarity' },
      json: { type: 'boolean', help: 'JSON output' },
    },
    positionals: { max: 0 },
    exits: { 0: 'printed', 2: `${USAGE_EXIT}, or neither or both of --candidate and --autre` },
  },
  journal: {
    file: 'journalCommand',
    usage: ['journal list [--surface S] [--json]', 'journal show ID [--json]'],
    summary: 'The recorded conversations (JOURNAL=on): list them, or print one step by step',
    description: 'Reads the conversation journal of the store (DATABASE_URL, else DB_PATH or DATA_DIR/palabre.db). ' +
      '`list` prints one line per conversation, latest first; `show` prints each step: the event received, what was done, the state reached. See docs/journal.md.',
    options: {
      surface: { type: 'string', value: 'S', help: 'only the conversations of this surface (skull, docs, t2, corrections)' },
      json: { type: 'boolean', help: 'JSON: an array of {id, surface, machine, startedAt, endedAt, steps}, or the whole journal' },
      config: CONFIG_OPTION,
    },
    positionals: { max: 2, help: '`list` (default), or `show` and a conversation id' },
    exits: { 0: 'printed', 2: `${USAGE_EXIT}, or no recorded conversation has this id` },
  },
  replay: {
    file: 'replayCommand',
    usage: ['replay ID|FILE.json [--json] [--save-test [DIR]]'],
    summary: 'Replay a recorded conversation against today\'s charts and prompts, step by step',
    description: 'Rebuilds the conversation from its journal with today\'s chart, fed the recorded events and actor outcomes (no network, no provider), ' +
      'time on a replay clock, and compares each step: state, actions and their params, actors started and their input (a model request). ' +
      'With --save-test, also writes the journal as a fixture into DIR (default test/recorded/), which the test suite replays. See docs/journal.md.',
    options: {
      json: { type: 'boolean', help: 'the result as one JSON object ({same, steps, divergence})' },
      'save-test': { type: 'boolean', help: 'write the journal as a regression fixture into DIR (default test/recorded/)' },
      config: CONFIG_OPTION,
    },
    positionals: { max: 2, help: 'ID: a conversation id (palabre journal list), or a fixture file; DIR: where --save-test writes' },
    exits: {
      0: 'the conversation behaves the same today',
      1: 'the machine that recorded it no longer exists',
      2: `${USAGE_EXIT}, or no recorded conversation has this id`,
      4: 'it diverges: the first differing step is printed, expected against got',
    },
  },
} as const satisfies Record<string, CommandDef>;

export type CommandName = keyof typeof COMMAND_DEFS;

export const DEFAULT_COMMAND: CommandName = 'serve';

/** The `--help` text of a command, from its definition. */
export function helpOf(name: CommandName, extra?: string): string {
  const def: CommandDef = COMMAND_DEFS[name];
  const lines = def.usage.map((u, i) => `${i === 0 ? 'usage: ' : '       '}palabre ${u}`);
  lines.push(def.description);
  const opts = Object.entries(def.options).map(([key, o]) => [`--${key}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}${o.short ? `, -${o.short}` : ''}`, o.help] as const);
  opts.push(['--help, -h', 'this text']);
  const width = Math.max(...opts.map(([k]) => k.length));
  lines.push('', 'Options:', ...opts.map(([k, h]) => `  ${k.padEnd(width)}  ${h}`));
  if (def.positionals.help) lines.push(`Arguments: ${def.positionals.help}`);
  lines.push('', 'Exit codes:', ...Object.entries(def.exits).map(([code, what]) => `  ${code}  ${what}`));
  if (extra) lines.push('', extra);
  return lines.join('\n');
}
