import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { ConfigError, loadConfig } from '../../core/config/index.js';
import { pino } from 'pino';
import { buildEmbedder } from '../../actors/docs/assistant.js';
import { Retriever } from '../../actors/retrieval/retriever.js';
import { createLogger } from '../../core/log.js';
import { EXIT, processIo, type CliIo } from '../io.js';

const USAGE = `usage: palabre index [dir] [--json]
Builds (or updates) the docs assistant's index of dir (default CORPUS_DIR, else docs/) under DATA_DIR.
A progress bar on a terminal; JSON progress lines when stdout is not a TTY or with --json.`;

/** `palabre index <dir>`: ingest + BM25 index, persisted; unchanged files are skipped. */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  let values: { json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true }));
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return EXIT.usage;
  }
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  let config;
  try {
    config = loadConfig({ env: io.env });
  } catch (e) {
    io.stderr.write(`${e instanceof ConfigError ? e.message : String(e)}\n`);
    return EXIT.usage;
  }
  const root = positionals[0] ?? config.CORPUS_DIR;
  const logger = createLogger({ level: 'warn', destination: pino.destination({ dest: 2, sync: true }) });
  // With EMBEDDINGS_PROVIDER set, vectors are computed now too (and kept with the index).
  const embedder = buildEmbedder(config, logger);
  const retriever = new Retriever({ root, dataDir: config.DATA_DIR, logger, ...(embedder ? { embedder } : {}) });
  const tty = (io.stdout as NodeJS.WriteStream).isTTY === true && !values.json;
  const bar = tty ? new cliProgress.SingleBar({ format: 'indexing {bar} {value}/{total} files | {file}', stream: io.stdout, hideCursor: true }, cliProgress.Presets.shades_classic) : undefined;
  let started = false;
  try {
    retriever.load();
    const report = await retriever.sync((done, total, path) => {
      if (bar) {
        if (!started) bar.start(total, 0, { file: '' });
        bar.update(done, { file: path });
      } else {
        io.stdout.write(`${JSON.stringify({ event: 'progress', done, total, path })}\n`);
      }
      started = true;
    });
    bar?.stop();
    const summary = { event: 'done', root: retriever.root, index: retriever.indexFile, ...report, ms: Math.round(report.ms) };
    if (tty) io.stdout.write(`${report.passages} passages from ${report.added + report.updated + report.unchanged} files (${report.added} added, ${report.updated} updated, ${report.removed} removed) in ${summary.ms} ms → ${retriever.indexFile}\n`);
    else io.stdout.write(`${JSON.stringify(summary)}\n`);
    if (report.passages === 0) {
      io.stderr.write(`no Markdown, MDX or text file found under ${retriever.root}\n`);
      return EXIT.failure;
    }
    return EXIT.ok;
  } catch (e) {
    bar?.stop();
    io.stderr.write(`indexing failed: ${(e as Error).message}\n`);
    return EXIT.failure;
  }
}
