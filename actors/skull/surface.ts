import { redactUrl } from '../../core/log.js';
import type { Surface } from '../../core/surfaceContract.js';
import { startSkullFleet, startSkullService, type SkullFleet, type SkullFleetOptions, type SkullService, type SkullServiceOptions } from '../../transports/mqtt/skullEdge.js';
import { surfaceProvider } from '../llm/surfaceEndpoints.js';
import { routeSkullPrimary } from '../llm/modelRoute.js';
import { fleetSupervisor, wireSkull, type SkullWiringOptions } from './skullWiring.js';
import { skullConfig, type SkullConfig } from './skullConfig.js';
import type { LlmConfig } from '../llm/llmConfig.js';

/** What starting one Skull (or a fleet) takes: the edge's options and the wiring's. */
export type SkullStartOptions = Omit<SkullServiceOptions, 'skull'> & SkullWiringOptions;
export type SkullFleetStartOptions = Omit<SkullFleetOptions, 'skull' | 'supervisor'> & Omit<SkullWiringOptions, 'machine' | 'input'>;

/** One device: the chart wired here (actors/skull/skullWiring.ts), served by the MQTT edge. */
export function startWiredSkull(opts: SkullStartOptions): Promise<SkullService> {
  const { provider: _p, random: _r, settings: _s, machine: _m, input: _i, ...edge } = opts;
  return startSkullService({ ...edge, skull: wireSkull(opts) });
}

/** A fleet (SKULL_FLEET_PREFIX): the device chart and the supervisor chart wired here, served by the same edge. */
export function startWiredSkullFleet(opts: SkullFleetStartOptions): Promise<SkullFleet> {
  const { provider: _p, random: _r, settings: _s, ...edge } = opts;
  return startSkullFleet({ ...edge, skull: wireSkull(opts), supervisor: fleetSupervisor });
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
      const fleet = await startWiredSkullFleet({ config: ctx.config, logger: ctx.logger, runtime: ctx.runtime, provider, mqttUrl: ctx.mqttUrl, metrics: ctx.metrics, connectTimeoutMs: 10_000 });
      return {
        stop: (opts) => fleet.stop(opts),
        health: () => {
          const h = fleet.health();
          return { ok: h.ok, provider: h.provider, mqtt_protocol: h.mqtt_protocol, fleet: fleet.prefix, shard: h.shard, live_actors: h.live_actors, busy_actors: h.busy_actors, refused: h.refused, rejected: h.rejected };
        },
        urls: { topics: `${redactUrl(ctx.mqttUrl)} ${fleet.prefix}/<deviceId>/asr/text → ${fleet.prefix}/<deviceId>/ai/response` },
      };
    }
    const svc = await startWiredSkull({
      config: ctx.config,
      logger: ctx.logger,
      runtime: ctx.runtime,
      provider,
      mqttUrl: ctx.mqttUrl,
      metrics: ctx.metrics,
      // In `palabre serve` an unreachable MQTT_URL must fail the start, not hang it.
      connectTimeoutMs: 10_000,
    });
    return {
      stop: (opts) => svc.stop(opts),
      health: () => {
        const h = svc.health();
        return { ok: h.ok, provider: h.provider, model: h.model, breaker: h.breaker, mqtt_protocol: h.mqtt_protocol, in_flight: h.in_flight, dropped: h.dropped, rejected: h.rejected };
      },
      // An absolute mqtt:// URL is printed as is (paths get the HTTP base URL).
      urls: { topics: `${redactUrl(ctx.mqttUrl)} ${svc.topics.asrText} → ${svc.topics.aiResponse}` },
    };
  },
};
