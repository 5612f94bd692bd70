import { configFromArgs } from '../configArgs.js';
import { processIo, type CliIo } from '../io.js';
import { EXIT } from '../definitions.js';
import { catchStopSignals } from '../signals.js';

/**
 * `palabre skull`: the Skull service alone, light enough for a Raspberry Pi Zero 2 W. It loads
 * the config, logger, actor runtime, LLM port and MQTT client — never express, the docs corpus or
 * the Gemini SDK (providers load their SDK on first use; SKULL_PROVIDER=gemini would load it).
 * Exit codes: 0 after SIGINT/SIGTERM, 2 for bad configuration or a busy port, 1 otherwise.
 */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  const parsed = configFromArgs('skull', args, io);
  if ('exit' in parsed) return parsed.exit;
  const { config } = parsed;

  const t0 = performance.now();
  // Before the service's modules load: the reply path's functions get optimised after a quarter
  // of V8's default budget (core/tuning/jitBudgetForSkull.ts says why).
  // TUNING_OFF turns that, and the MQTT write holding, off (docs/runtime-tuning.md).
  const [{ applyTuningOff }, { tuneJitForSkull }] = await Promise.all([import('../../core/tuning/switches.js'), import('../../core/tuning/jitBudgetForSkull.js')]);
  const tuningOff = applyTuningOff(config.TUNING_OFF);
  tuneJitForSkull();
  // No prom-client here: nothing serves /metrics in this process, and it costs ~4 MB on a Pi.
  // The Skull's composition root wires the chart and hands it to the MQTT edge, which runs on
  // core's MQTT service without the HTTP server (startHeadless, core/surfaceHost.ts).
  const [{ createLogger, redactUrl }, { Runtime }, { createProviders }, { startWiredSkull, startWiredSkullFleet }] = await Promise.all([
    import('../../core/log.js'),
    import('../../core/runtime.js'),
    import('../../actors/llm/providers.js'),
    import('../../actors/skull/surface.js'),
  ]);
  const logFile = config.SKULL_LOG_FILE ?? config.LOG_FILE;
  const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, name: 'palabre-skull', ...(logFile ? { destination: logFile } : {}) });
  // Signals are caught from here on, so that a line logged just before one is never lost
  // (cli/signals.ts says why); a second one skips the rest of the drain.
  let stopping = false;
  let stop = (reason: string, code: number): void => {
    // Before the service is up nothing has been taken to drain, and the first MQTT connection is
    // retried for as long as the broker is away: exit now (pino's exit hook writes the log).
    logger.info({ reason }, 'palabre skull stopping before it was ready');
    process.exit(code);
  };
  const release = catchStopSignals('palabre skull', io.stderr, (sig) => stop(sig, EXIT.ok));

  let broker: { url: string; close(): Promise<void> } | undefined;
  let mqttUrl = config.MQTT_URL;
  if (!mqttUrl) {
    const { startEmbeddedBroker, ListenError } = await import('../../core/broker.js');
    try {
      broker = await startEmbeddedBroker({ host: config.MQTT_EMBEDDED_HOST, port: config.MQTT_EMBEDDED_PORT, logger });
    } catch (err) {
      if (err instanceof ListenError) {
        io.stderr.write(`palabre skull: cannot listen on ${err.host}:${err.port} (${err.code}). Set MQTT_EMBEDDED_PORT to a free port, or MQTT_URL to an existing broker.\n`);
        release();
        return EXIT.usage;
      }
      throw err;
    }
    mqttUrl = broker.url;
  }

  const providers = createProviders(config, { logger });
  const [{ surfaceProvider }, { watchModels, modelProblemLines }, { routeSkullPrimary }] = await Promise.all([
    import('../../actors/llm/surfaceEndpoints.js'),
    import('../../actors/llm/modelStatus.js'),
    import('../../actors/llm/modelRoute.js'),
  ]);
  // Skull's models only, checked in the background once the service runs, then every 24 h.
  const models = watchModels({ ...config, SURFACES: 'skull' }, { logger, providers });
  const provider = routeSkullPrimary(surfaceProvider(providers, config, 'skull'), config, () => models.current(), logger.child({ surface: 'skull' }));
  const runtime = new Runtime();
  // SKULL_FLEET_PREFIX: one actor per device under `<prefix>/<deviceId>/…`; else the one device.
  const svc = config.SKULL_FLEET_PREFIX
    ? await startWiredSkullFleet({ config, logger, runtime, provider, mqttUrl })
    : await startWiredSkull({ config, logger, runtime, provider, mqttUrl });
  const startMs = Math.round(performance.now() - t0);
  const topics =
    'topics' in svc
      ? `topics ${svc.topics.asrText} ${svc.topics.aiRequest} → ${svc.topics.aiResponse}`
      : `fleet ${svc.prefix}/<deviceId>/asr/text ${svc.prefix}/<deviceId>/ai/request → ${svc.prefix}/<deviceId>/ai/response, shard ${svc.shard.index}/${svc.shard.count}, health ${svc.prefix}/_service/${svc.instance}/health`;
  io.stdout.write(
    `palabre skull ready on ${redactUrl(mqttUrl)}${broker ? ' (embedded broker, MQTT 3.1.1)' : ''} — MQTT ${svc.protocolVersion === 5 ? '5' : '3.1.1'}, ` +
      `provider ${provider.name}${provider.name === 'offline' ? ' (persona script, no network)' : ''}, ${topics}\n`,
  );
  logger.info({ mqttUrl: redactUrl(mqttUrl), embedded: Boolean(broker), provider: provider.name, startMs }, 'palabre skull ready');
  if (tuningOff.length > 0) logger.info({ off: tuningOff }, 'runtime tuning off (TUNING_OFF)');
  models.start();
  void models.firstCheck.then((statuses) => {
    const lines = modelProblemLines(statuses);
    if (lines.length > 0) io.stdout.write(`${lines.map((l) => `  warning: ${l}`).join('\n')}\n`);
  });

  return new Promise<number>((resolve) => {
    stop = (reason: string, code: number) => {
      if (stopping) return;
      stopping = true;
      logger.info({ reason, timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'palabre skull stopping');
      models.stop();
      void (async () => {
        // A signal drains: the turn in flight (and the queue, while time allows) is answered.
        await svc.stop({ deadlineAt: Date.now() + config.SHUTDOWN_TIMEOUT_MS }).catch(() => undefined);
        runtime.shutdown();
        await broker?.close().catch(() => undefined);
        // What the file destination still holds is written synchronously by pino's exit hook.
        release();
        resolve(code);
      })();
    };
    process.once('uncaughtException', (err) => {
      logger.fatal({ err }, 'uncaught exception');
      stop('uncaughtException', EXIT.failure);
    });
  });
}
