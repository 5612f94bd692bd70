import { hostname } from 'node:os';
import type { Express } from 'express';
import type { App } from './app.js';
import type { RunningSurface } from './surfaceContract.js';
import type { Store } from './store/sqlStore.js';
import type { MqttConnectionHealth } from './mqtt/service.js';
import { VERSION } from './version.js';

/**
 * What supervisors, load balancers and Prometheus read: `/livez` (the process answers), `/readyz`
 * (it should get new connections), `/healthz` (the same plus every surface's facts) and `/metrics`.
 * docs/operations.md describes what each answers while warming up, serving and draining.
 */

/** Where the process is in its life; read by the probes and by the 503 gate of buildExpress. */
export interface Lifecycle {
  ready: boolean;
  stopping: boolean;
  /** Surfaces still starting (warm-up: index, spelling engine…); null until their list is loaded. */
  warming: string[] | null;
}

export interface StartedSurface {
  name: string;
  running: RunningSurface;
}

export interface ProbeDeps {
  app: App;
  state: Lifecycle;
  startedAt: number;
  /** The surfaces started so far, in start order (filled while the process warms up). */
  started: readonly StartedSurface[];
  mqttMode: 'embedded' | 'external';
  /** The process's MQTT connections, one per surface that has one. */
  mqtt: { health(): MqttConnectionHealth[] };
}

/** One `SELECT 1` on the store, bounded: a store that hangs makes the instance not ready. */
async function probeStore(store: Store): Promise<{ engine: Store['dialect']; reachable: boolean; latencyMs?: number; error?: string }> {
  try {
    const ms = await store.ping(1000);
    return { engine: store.dialect, reachable: true, latencyMs: Math.round(ms * 100) / 100 };
  } catch (err) {
    return { engine: store.dialect, reachable: false, error: (err as Error).message };
  }
}

/** The first started surface that says it should get no new connections, with why. */
function unreadySurface(started: readonly StartedSurface[]): { surface: string; reason: string } | undefined {
  for (const s of started) {
    const reason = s.running.unready?.();
    if (reason) return { surface: s.name, reason };
  }
  return undefined;
}

export function mountProbes(expressApp: Express, d: ProbeDeps): void {
  const { app, state } = d;
  const uptimeS = () => Math.round((Date.now() - d.startedAt) / 100) / 10;
  const phase = () => (state.stopping ? 'stopping' : 'warming');
  // Live: the process answers (a supervisor restarts it otherwise). Ready: it should get new
  // connections — false while warming up, draining, or while its store does not answer, so a load
  // balancer polling /readyz stops sending work here first. /healthz answers as soon as HTTP
  // listens (start → /healthz must not wait for the warm-up), with `ready` in its body.
  expressApp.get('/livez', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ live: true, version: VERSION, status: state.stopping ? 'stopping' : state.ready ? 'ok' : 'warming' });
  });

  // What a load balancer polls every second: readiness and one `SELECT 1`, nothing else (the
  // surfaces' facts in /healthz may count rows).
  expressApp.get('/readyz', async (_req, res) => {
    if (!state.ready) {
      res.status(503).set('Cache-Control', 'no-store').json({ ready: false, status: phase(), ...(state.stopping ? {} : { warming: state.warming ?? ['surfaces'] }) });
      return;
    }
    const unready = unreadySurface(d.started);
    if (unready) {
      res.status(503).set('Cache-Control', 'no-store').json({ ready: false, status: 'surface_unready', ...unready });
      return;
    }
    const store = await probeStore(app.store);
    res.status(store.reachable ? 200 : 503).set('Cache-Control', 'no-store')
      .json(store.reachable ? { ready: true, status: 'ok', store: store.engine, storeLatencyMs: store.latencyMs } : { ready: false, status: 'store_unreachable', store: store.engine });
  });

  expressApp.get('/healthz', async (_req, res) => {
    if (!state.ready) {
      const body = { status: phase(), live: true, ready: false, version: VERSION, store: app.store.dialect, uptimeS: uptimeS(), ...(state.stopping ? {} : { warming: state.warming ?? ['surfaces'] }) };
      res.status(state.stopping ? 503 : 200).set('Cache-Control', 'no-store').json(body);
      return;
    }
    const store = await probeStore(app.store);
    if (!store.reachable) {
      app.logger.warn({ store: store.engine, err: store.error }, 'store unreachable: /healthz not ready');
      res.status(503).set('Cache-Control', 'no-store').json({ status: 'store_unreachable', live: true, ready: false, version: VERSION, store: store.engine, storeError: store.error });
      return;
    }
    const unready = unreadySurface(d.started);
    if (unready) {
      res.status(503).set('Cache-Control', 'no-store').json({ status: 'surface_unready', live: true, ready: false, version: VERSION, store: store.engine, ...unready });
      return;
    }
    res.set('Cache-Control', 'no-store').json(await readyHealth(d, store, uptimeS()));
  });

  expressApp.get('/metrics', async (_req, res, next) => {
    try {
      // The actors gauge is a view of the runtime: refresh it at each scrape.
      app.metrics.actors.reset();
      for (const [machine, count] of Object.entries(app.runtime.countByKind())) app.metrics.actors.set({ machine }, count);
      res.set('Content-Type', app.metrics.registry.contentType).send(await app.metrics.registry.metrics());
    } catch (err) {
      next(err);
    }
  });
}

/** The body of a ready /healthz: the process services' facts (providers, models), actors and every surface's health(). */
async function readyHealth(d: ProbeDeps, store: { engine: Store['dialect']; latencyMs?: number }, uptimeS: number) {
  const { app } = d;
  const surfaces: Record<string, unknown> = {};
  for (const { name, running } of d.started) {
    try {
      surfaces[name] = (await running.health?.()) ?? {};
    } catch (err) {
      surfaces[name] = { error: 'health check failed' };
      app.logger.warn({ err, surface: name }, 'surface health() threw');
    }
  }
  return {
    status: 'ok',
    live: true,
    ready: true,
    version: VERSION,
    store: store.engine,
    storeLatencyMs: store.latencyMs,
    instance: app.config.INSTANCE_ID ?? hostname(),
    uptimeS,
    ...app.services.health?.(),
    actors: app.runtime.countByKind(),
    mqtt: d.mqttMode,
    mqttConnections: d.mqtt.health(),
    surfaces,
  };
}
