import { redactUrl } from '../../core/log.js';
import type { MqttService } from '../../core/mqtt/service.js';
import type { Surface } from '../../core/surfaceContract.js';
import { startHeadless } from '../../core/surfaceHost.js';
import { startSkullFleet, startSkullService, type SkullFleet, type SkullFleetOptions, type SkullService, type SkullServiceOptions } from '../../transports/mqtt/skullEdge.js';
import { surfaceProvider } from '../llm/surfaceEndpoints.js';
import { routeSkullPrimary } from '../llm/modelRoute.js';
import { fleetSupervisor, wireSkull, type SkullWiringOptions } from './skullWiring.js';
import { skullConfig, type SkullConfig } from './skullConfig.js';
import type { LlmConfig } from '../llm/llmConfig.js';

type WiredSkullOptions = Omit<SkullServiceOptions, 'skull'> & SkullWiringOptions;
type WiredFleetOptions = Omit<SkullFleetOptions, 'skull' | 'supervisor'> & Omit<SkullWiringOptions, 'machine' | 'input'>;

/** Where a Skull started on its own finds its broker, and how it reaches it. */
interface BrokerOptions {
  mqttUrl: string;
  /** First reconnect delay, ms (default 1000). */
  reconnectBaseMs?: number;
  /** Gives up the first connection after this long (default: keep trying, as a device should). */
  connectTimeoutMs?: number;
}

/** What starting one Skull (or a fleet) on its own takes: the broker, the edge's options and the wiring's. */
export type SkullStartOptions = Omit<WiredSkullOptions, 'mqtt'> & BrokerOptions;
export type SkullFleetStartOptions = Omit<WiredFleetOptions, 'mqtt'> & BrokerOptions;

/** One device: the chart wired here (actors/skull/skullWiring.ts), served by the MQTT edge. */
function wiredSkull(opts: WiredSkullOptions): Promise<SkullService> {
  const { provider: _p, random: _r, settings: _s, machine: _m, input: _i, ...edge } = opts;
  return startSkullService({ ...edge, skull: wireSkull(opts) });
}

/** A fleet (SKULL_FLEET_PREFIX): the device chart and the supervisor chart wired here, served by the same edge. */
function wiredFleet(opts: WiredFleetOptions): Promise<SkullFleet> {
  const { provider: _p, random: _r, settings: _s, ...edge } = opts;
  return startSkullFleet({ ...edge, skull: wireSkull(opts), supervisor: fleetSupervisor });
}

/**
 * One device on its own, without the HTTP server (`palabre skull`, the Skull's tests and
 * benchmarks): on core's MQTT service at `mqttUrl`, its edge mounted and drained as `palabre serve`
 * does it (core/surfaceHost.ts). `stop({ deadlineAt })` drains; `stop()` stops now.
 */
export function startWiredSkull(opts: SkullStartOptions): Promise<SkullService> {
  const { mqttUrl: _u, reconnectBaseMs: _b, connectTimeoutMs: _t, ...wired } = opts;
  return onItsOwn(opts, (mqtt) => wiredSkull({ ...wired, mqtt }));
}

/** A fleet on its own, as `startWiredSkull`. */
export function startWiredSkullFleet(opts: SkullFleetStartOptions): Promise<SkullFleet> {
  const { mqttUrl: _u, reconnectBaseMs: _b, connectTimeoutMs: _t, ...wired } = opts;
  return onItsOwn(opts, (mqtt) => wiredFleet({ ...wired, mqtt }));
}

/** The service started by core's surface host; its stop is the host's (unsubscribe, drain, end the connection). */
async function onItsOwn<S extends SkullService | SkullFleet>(opts: BrokerOptions & Pick<SkullStartOptions, 'logger'>, start: (mqtt: MqttService) => Promise<S>): Promise<S> {
  let service: S | undefined;
  const host = await startHeadless({
    url: opts.mqttUrl,
    logger: opts.logger,
    ...(opts.reconnectBaseMs !== undefined ? { reconnectBaseMs: opts.reconnectBaseMs } : {}),
    ...(opts.connectTimeoutMs !== undefined ? { connectTimeoutMs: opts.connectTimeoutMs } : {}),
    surfaces: [
      {
        name: 'skull',
        async start(mqtt) {
          const started = await start(mqtt);
          service = started;
          return { mqtt: started.mqtt, stop: (stopOpts) => started.stop(stopOpts) };
        },
      },
    ],
  });
  return { ...service!, stop: (stopOpts?: { deadlineAt?: number }) => host.stop(stopOpts) };
}

/**
 * The Skull inside `palabre serve`: one device actor on the process's broker (embedded aedes or
 * MQTT_URL), or a fleet of them with SKULL_FLEET_PREFIX, through the one MQTT edge (transports/mqtt/skullEdge.ts), with the provider SKULL_PROVIDER names (`auto` = the first with a key, else offline).
 */
export const skullSurface: Surface<SkullConfig & LlmConfig> = {
  name: 'skull',
  machines: {
    skull: () => import('../../machines/skull.js').then((m) => m.skullMachine),
    skullFleet: () => import('../../machines/skullFleet.js').then((m) => m.skullFleetMachine),
    llmCall: () => import('../../machines/llmCall.js').then((m) => m.llmCallMachine),
    breaker: () => import('../../machines/breaker.js').then((m) => m.breakerMachine),
  },
  config: skullConfig,
  async start(ctx) {
    const shared = surfaceProvider(ctx.providers, ctx.config, 'skull');
    // A primary the provider no longer lists is served by a listed fallback (one log line).
    const provider = ctx.modelStatus ? routeSkullPrimary(shared, ctx.config, ctx.modelStatus, ctx.logger.child({ surface: 'skull' })) : shared;
    if (ctx.config.SKULL_FLEET_PREFIX) {
      const fleet = await wiredFleet({ config: ctx.config, logger: ctx.logger, runtime: ctx.runtime, provider, mqtt: ctx.mqtt, metrics: ctx.metrics });
      return {
        mqtt: fleet.mqtt,
        stop: (opts) => fleet.stop(opts),
        health: () => {
          const h = fleet.health();
          return { ok: h.ok, provider: h.provider, mqtt_protocol: h.mqtt_protocol, fleet: fleet.prefix, shard: h.shard, live_actors: h.live_actors, busy_actors: h.busy_actors, refused: h.refused, rejected: h.rejected };
        },
        urls: { topics: `${redactUrl(ctx.mqtt.url)} ${fleet.prefix}/<deviceId>/asr/text → ${fleet.prefix}/<deviceId>/ai/response` },
      };
    }
    const svc = await wiredSkull({ config: ctx.config, logger: ctx.logger, runtime: ctx.runtime, provider, mqtt: ctx.mqtt, metrics: ctx.metrics });
    return {
      mqtt: svc.mqtt,
      stop: (opts) => svc.stop(opts),
      health: () => {
        const h = svc.health();
        return { ok: h.ok, provider: h.provider, model: h.model, breaker: h.breaker, mqtt_protocol: h.mqtt_protocol, in_flight: h.in_flight, dropped: h.dropped, rejected: h.rejected };
      },
      // An absolute mqtt:// URL is printed as is (paths get the HTTP base URL).
      urls: { topics: `${redactUrl(ctx.mqtt.url)} ${svc.topics.asrText} → ${svc.topics.aiResponse}` },
    };
  },
};
