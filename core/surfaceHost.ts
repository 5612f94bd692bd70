import type { Logger } from './log.js';
import { createMqttService, type MqttService, type MqttServiceOptions, type ProcessMqtt } from './mqtt/service.js';
import type { StartedSurface } from './probes.js';
import type { RunningSurface } from './surfaceContract.js';

/**
 * What `palabre serve` (core/server.ts) and a process without the HTTP server (`palabre skull`)
 * do alike with started surfaces: the drain, and the MQTT edges. This module loads no HTTP code:
 * `palabre skull` on a Raspberry Pi never loads express.
 */

/**
 * The drain of started surfaces, all at once, the last started first: each one's MQTT filters are
 * unsubscribed (no new input), then its `stop` finishes what is in flight by `deadlineAt` (without
 * one: stops now). Once every surface has drained, every MQTT connection ends. A surface whose
 * stop throws is logged and named in `failed`.
 */
export async function drainSurfaces(started: readonly StartedSurface[], mqtt: ProcessMqtt, deadlineAt: number | undefined, failed: string[], logger: Logger): Promise<void> {
  await Promise.all(
    [...started].reverse().map(async ({ name, running }) => {
      try {
        if (deadlineAt !== undefined) await mqtt.unsubscribe(name, deadlineAt);
        await running.stop(deadlineAt !== undefined ? { deadlineAt } : undefined);
      } catch (err) {
        failed.push(name);
        logger.error({ err, surface: name }, 'surface stop failed');
      }
    }),
  );
  await mqtt.close();
}

/** A surface of a process without the HTTP server: its start gets the MQTT service, nothing else from core. */
interface HeadlessSurface<R extends RunningSurface> {
  name: string;
  start(mqtt: MqttService): Promise<R>;
}

export interface HeadlessHost<R> {
  mqtt: ProcessMqtt;
  /** What each surface's start returned, in order. */
  running: R[];
  /** The drain (with `deadlineAt`) or an immediate stop, as `palabre serve` does it; idempotent. */
  stop(opts?: { deadlineAt?: number }): Promise<void>;
}

/**
 * Starts surfaces without the HTTP server (`palabre skull`, the Skull's tests and benchmarks): one
 * MQTT service on the broker at `url`, each surface started in order and its MQTT edge mounted as
 * `palabre serve` mounts it. A surface that declares routes or sockets is refused: nothing here
 * serves HTTP. A failed start stops what had started and ends the connections.
 */
export async function startHeadless<R extends RunningSurface>(opts: MqttServiceOptions & { surfaces: readonly HeadlessSurface<R>[] }): Promise<HeadlessHost<R>> {
  const { logger } = opts;
  const mqtt = createMqttService(opts);
  const started: Array<StartedSurface & { running: R }> = [];
  let stopping: Promise<void> | undefined;
  const stop = (stopOpts?: { deadlineAt?: number }): Promise<void> => {
    stopping ??= (async () => {
      const failed: string[] = [];
      await drainSurfaces(started, mqtt, stopOpts?.deadlineAt, failed, logger);
      if (failed.length > 0) throw new Error(`the ${failed.join(', ')} surface(s) failed to stop`);
    })();
    return stopping;
  };
  try {
    for (const surface of opts.surfaces) {
      const running = await surface.start(mqtt);
      started.push({ name: surface.name, running });
      if (running.routes || running.sockets) throw new Error(`the ${surface.name} surface serves HTTP: start it with palabre serve`);
      if (running.mqtt) await mqtt.mount(surface.name, running.mqtt);
    }
  } catch (err) {
    await stop().catch(() => undefined);
    await mqtt.close({ force: true });
    throw err;
  }
  return { mqtt, running: started.map((s) => s.running), stop };
}
