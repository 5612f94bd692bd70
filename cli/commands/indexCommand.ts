import cliProgress from 'cli-progress';
import { pino } from 'pino';
import { buildEmbedder } from '../../actors/docs/assistant.js';
import { Retriever } from '../../actors/retrieval/retriever.js';
import { createLogger } from '../../core/log.js';
import { loadConfigOrExit } from '../configArgs.js';
import { chooseCorpus, rememberCorpus } from '../corpusChoice.js';
import { processIo, type CliIo } from '../io.js';
import { EXIT } from '../definitions.js';
import { parseCommand } from '../parse.js';

/**
 * `palabre index [DIR]`: ingest + BM25 index, persisted; unchanged files are skipped. The folder
 * indexed becomes the default corpus of `ask` and `serve` while CORPUS_DIR is unset.
 */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  const parsed = parseCommand('index', args, io);
  if ('exit' in parsed) return parsed.exit;
  const loaded = loadConfigOrExit(io);
  if ('exit' in loaded) return loaded.exit;
  const { config } = loaded;
  const choice = chooseCorpus(config, { ...(parsed.positionals[0] ? { flag: parsed.positionals[0] } : {}), load: { env: io.env } });
  if (choice.note) io.stderr.write(`${choice.note}\n`);
  const logger = createLogger({ level: 'warn', destination: pino.destination({ dest: 2, sync: true }) });
  // With EMBEDDINGS_PROVIDER set, vectors are computed now too (and kept with the index).
  const embedder = buildEmbedder(config, logger);
  const retriever = new Retriever({ root: choice.dir, dataDir: config.DATA_DIR, logger, ...(embedder ? { embedder } : {}) });
  const tty = (io.stdout as NodeJS.WriteStream).isTTY === true && !parsed.flag('json');
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
    if (report.passages === 0) {
      if (!tty) io.stdout.write(`${JSON.stringify({ event: 'done', root: retriever.root, ...report, ms: Math.round(report.ms) })}\n`);
      io.stderr.write(`no Markdown, MDX or text file found under ${retriever.root}\n`);
      return EXIT.failure;
    }
    // Only when CORPUS_DIR does not decide: with it set, `ask` and `serve` follow CORPUS_DIR anyway.
    const remembered = choice.source !== 'CORPUS_DIR';
    if (remembered) rememberCorpus(config.DATA_DIR, retriever.root);
    const summary = { event: 'done', root: retriever.root, index: retriever.indexFile, ...report, ms: Math.round(report.ms), remembered };
    if (tty) {
      io.stdout.write(`${report.passages} passages from ${report.added + report.updated + report.unchanged} files (${report.added} added, ${report.updated} updated, ${report.removed} removed) in ${summary.ms} ms → ${retriever.indexFile}\n`);
      if (remembered) io.stdout.write(`palabre ask and palabre serve now answer from ${retriever.root} (while CORPUS_DIR is unset)\n`);
    } else {
      io.stdout.write(`${JSON.stringify(summary)}\n`);
    }
    return EXIT.ok;
  } catch (e) {
    bar?.stop();
    io.stderr.write(`indexing failed: ${(e as Error).message}\n`);
    return EXIT.failure;
  }
}
