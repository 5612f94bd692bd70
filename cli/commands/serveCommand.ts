import { configFromArgs } from '../configArgs.js';
import { chooseCorpus } from '../corpusChoice.js';
import { catchStopSignals } from '../signals.js';
import { processIo, type CliIo } from '../io.js';
import { EXIT } from '../definitions.js';

/** Lines printed once the process serves: one per surface with its URLs. */
export function readyLines(version: string, urls: Record<string, Record<string, string>>, providers: Record<string, string>, mqttMode: string): string[] {
  const offline = Object.entries(providers).filter(([, p]) => p === 'offline').map(([s]) => s);
  const head = offline.length === 0
    ? `palabre ${version} is serving`
    : `palabre ${version} is serving — offline provider (deterministic, no network) for: ${offline.join(', ')}`;
  const width = Math.max(8, ...Object.keys(urls).map((k) => k.length));
  const lines = [head];
  for (const [surface, map] of Object.entries(urls)) {
    const parts = Object.entries(map).map(([key, url]) => (key === surface ? url : `${key} ${url}`));
    if (surface === 'mqtt') parts.push(`(${mqttMode})`);
    lines.push(`  ${surface.padEnd(width)}  ${parts.join('   ')}`);
  }
  return lines;
}

/**
 * `palabre serve` (what `npm start` runs). Exit codes: 0 after a clean SIGINT/SIGTERM shutdown,
 * 2 for invalid configuration or a busy port (one line naming the variable to change),
 * 1 when a surface failed or the shutdown deadline was reached.
 */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  const parsed = configFromArgs('serve', args, io);
  if ('exit' in parsed) return parsed.exit;
  // CORPUS_DIR unset: the docs assistant answers from the folder `palabre index` indexed last (and says so).
  const file = parsed.args.string('config');
  const corpus = chooseCorpus(parsed.config, { load: { env: io.env, ...(file ? { file } : {}) } });
  if (corpus.note) io.stderr.write(`${corpus.note}\n`);
  const config = { ...parsed.config, CORPUS_DIR: corpus.dir };
  // The runtime tuning TUNING_OFF leaves on (docs/runtime-tuning.md), then fewer major
  // collections under load (core/tuning/gcFlagsForServe.ts: why, and what it costs).
  const [{ applyTuningOff }, { tuneGcForServe }] = await Promise.all([import('../../core/tuning/switches.js'), import('../../core/tuning/gcFlagsForServe.js')]);
  const tuningOff = applyTuningOff(config.TUNING_OFF);
  tuneGcForServe();

  // Loaded here, not at the top: `palabre --help` and the other commands never pay for express.
  const [{ startServer }, { StartupError }, { providersPerSurface }] = await Promise.all([import('../../actors/serve.js'), import('../../core/server.js'), import('../../actors/llm/llmServices.js')]);
  const { VERSION } = await import('../../core/version.js');

  // Signals are caught from here on: one that arrives while surfaces start is honoured right after.
  let requested: { reason: string; code: number } | undefined;
  let stop: (reason: string, code: number) => void = (reason, code) => {
    requested ??= { reason, code };
  };
  const release = catchStopSignals('palabre', io.stderr, (sig) => stop(sig, EXIT.ok));

  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({ config });
  } catch (err) {
    release();
    if (err instanceof StartupError) {
      io.stderr.write(`${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
  const { logger } = server.ctx;
  const providers = providersPerSurface(server.ctx);
  io.stdout.write(`${readyLines(VERSION, server.urls, providers, server.mqttMode).join('\n')}\n`);
  for (const line of server.surfaces.flatMap((s) => s.running.notes?.() ?? [])) io.stdout.write(`  ${line}\n`);
  // The model check runs after the start (it never delays it): its warnings complete the banner.
  const { modelProblemLines } = await import('../../actors/llm/modelStatus.js');
  void server.models.firstCheck.then((statuses) => {
    const lines = modelProblemLines(statuses);
    if (lines.length > 0) io.stdout.write(`${lines.map((l) => `  warning: ${l}`).join('\n')}\n`);
  });
  const startMs = Math.round(performance.now());
  logger.info({ version: VERSION, urls: server.urls, providers, mqtt: server.mqttMode, startMs, timings: server.timings }, 'palabre serving');
  if (tuningOff.length > 0) logger.info({ off: tuningOff }, 'runtime tuning off (TUNING_OFF)');

  return new Promise<number>((resolve) => {
    let exitCode = EXIT.ok as number;
    // Why the exit code is not 0, said on stderr: the log's last line (« stopped ») only covers the drain.
    const why: string[] = [];
    stop = (reason, code) => {
      exitCode = Math.max(exitCode, code);
      if (code !== EXIT.ok) why.push(reason);
      server.shutdown(reason).then(({ forced, failed }) => {
        release();
        if (forced) why.push(`the shutdown deadline (SHUTDOWN_TIMEOUT_MS=${config.SHUTDOWN_TIMEOUT_MS}) was reached`);
        if (failed) why.push(`the stop of ${failed.join(', ')} failed`);
        const code = forced || failed ? EXIT.failure : exitCode;
        if (code !== EXIT.ok) io.stderr.write(`palabre: exit ${code}: ${why.join('; ')} (see the log)\n`);
        resolve(code);
      });
    };
    // A bug must not leave half a server running: log it, shut down cleanly, exit 1.
    process.once('uncaughtException', (err) => {
      logger.fatal({ err }, 'uncaught exception');
      stop('uncaughtException', EXIT.failure);
    });
    process.once('unhandledRejection', (err) => {
      logger.fatal({ err }, 'unhandled promise rejection');
      stop('unhandledRejection', EXIT.failure);
    });
    if (requested) stop(requested.reason, requested.code);
  });
}
