import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { hostname } from 'node:os';
import express, { type ErrorRequestHandler, type Express } from 'express';
import helmet from 'helmet';
import type { Config } from './config/index.js';
import type { Logger } from './log.js';
import { createApp, type App } from './app.js';
import { listen, ListenError, startEmbeddedBroker, type EmbeddedBroker } from './broker.js';
import { surfaces as defaultSurfaces, type SurfaceLoader } from './surfaces.js';
import type { Store } from './store/store.js';
import type { AppContext, HttpContext, RunningSurface, Surface } from './surface.js';
import { VERSION } from './version.js';
import { collectAfterWarmUp } from './settle.js';
import type { ProviderName } from '../actors/llm/types.js';
import { watchModels, type ModelWatch } from '../actors/llm/modelStatus.js';
import { hasOverride, surfaceEndpoint, surfaceProvider, surfaceSetting, type LlmSurface } from '../actors/llm/surfaceEndpoints.js';

/** A failure to start that the user can fix; `exitCode` 2 (busy port, bad host) or 1. */
export class StartupError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number, cause?: unknown) {
    super(message, { cause });
    this.name = 'StartupError';
    this.exitCode = exitCode;
  }
}

export interface ServeOptions {
  config: Config;
  /** Replaces the logger LOG_LEVEL/LOG_FILE describe (tests). */
  logger?: Logger;
  /** Surfaces to start; default the list in core/surfaces.ts. */
  surfaces?: SurfaceLoader[];
}

export interface StartedSurface {
  name: string;
  running: RunningSurface;
}

export interface RunningServer {
  ctx: AppContext;
  http: HttpContext;
  /** `embedded` when this process runs the aedes broker, `external` when MQTT_URL names one. */
  mqttMode: 'embedded' | 'external';
  surfaces: StartedSurface[];
  /** Milliseconds spent in each start phase (for the ready log line and the start benchmark). */
  timings: Record<string, number>;
  /** Absolute URLs per surface, for printing. */
  urls: Record<string, Record<string, string>>;
  /** The background model check (/healthz `models`); its first result is `models.firstCheck`. */
  models: ModelWatch;
  /** Stops everything within SHUTDOWN_TIMEOUT_MS; `forced` when the deadline cut it short. */
  shutdown(reason: string): Promise<{ forced: boolean }>;
}

/**
 * The only 'self' policy: pages, scripts, styles, images, fetches and WebSockets come from this
 * origin; no plugin, no framing, no inline code. Pages that need more set their own header.
 */
const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  mediaSrc: ["'self'"],
  workerSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  scriptSrcAttr: ["'none'"],
  // Served over plain HTTP on 127.0.0.1 by default: upgrading requests would break it.
  upgradeInsecureRequests: null,
};

/** The provider each surface resolves to, by its setting (surface setting, else LLM_PROVIDER). */
export function providersPerSurface(ctx: Pick<AppContext, 'config' | 'providers'>): Record<string, ProviderName> {
  const { config, providers } = ctx;
  // A surface with its own endpoint/key (SKULL_BASE_URL…) uses its own client.
  const pick = (surface: LlmSurface): ProviderName => {
    const setting = surfaceSetting(config, surface);
    if (hasOverride(surfaceEndpoint(config, surface))) return surfaceProvider(providers, config, surface).name;
    return providers.resolve(setting === 'auto' ? config.LLM_PROVIDER : setting).name;
  };
  return {
    skull: pick('skull'),
    docs: pick('docs'),
    corrections: pick('corrections'),
    // The live interlocutor is Gemini Live; without a Gemini key T2 falls back to its text mode.
    t2: providers.available().includes('gemini') ? 'gemini' : pick('t2text'),
  };
}

/** An external broker URL may carry credentials (mqtt://user:pass@host): never print them. */
export function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function portMessage(err: ListenError, what: string, portVar: string, hostVar: string, extra = ''): string {
  if (err.code === 'EADDRINUSE') {
    return `palabre: port ${err.port} on ${err.host} is already in use (${what}). Set ${portVar} to a free port${extra}.`;
  }
  if (err.code === 'EACCES') {
    return `palabre: not allowed to listen on port ${err.port} (${what}); ports below 1024 need privileges. Set ${portVar} to a port above 1023${extra}.`;
  }
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') {
    return `palabre: cannot listen on ${err.host} (${what}, ${err.code}): no such local address. Set ${hostVar} to an address of this machine.`;
  }
  return `palabre: cannot listen on ${err.host}:${err.port} (${what}, ${err.code}).`;
}

/** The surfaces SURFACES names (`all`, `none`, or a comma list); unknown names are an error. */
export function selectSurfaces(all: Surface[], setting: string): Surface[] {
  const wanted = setting.trim();
  if (wanted === 'all') return all;
  const names = wanted === 'none' ? [] : wanted.split(',').map((n) => n.trim());
  const known = new Set(all.map((s) => s.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new StartupError(`palabre: SURFACES names unknown surface(s) ${unknown.join(', ')}; this build has: ${[...known].join(', ') || 'none'}.`, 2);
  }
  return all.filter((s) => names.includes(s.name));
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** Seconds a client is told to wait (Retry-After) while this process drains. */
export const DRAIN_RETRY_AFTER_S = 5;

/**
 * The bare Express app: proxy trust, production mode, helmet's security headers with our CSP, and
 * the 503 + Retry-After gate while warming up or draining. `/healthz`, `/livez`, `/readyz`,
 * `/metrics`, the surfaces, the JSON 404 and the error handler are added by `startServer`.
 */
function buildExpress(config: Config, unavailable: () => 'starting' | 'stopping' | undefined): Express {
  const app = express();
  app.set('trust proxy', config.TRUST_PROXY);
  app.set('env', 'production'); // never render stack traces in default error pages
  // Draining: a request that arrives on a kept-alive connection gets 503 + Retry-After (a load
  // balancer sends it elsewhere); /healthz still answers, with `ready: false`. Warming up (the
  // surfaces still starting): the same 503, so that no request meets a route not yet mounted.
  app.use(helmet({ contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES } }));
  app.use((req, res, next) => {
    const why = unavailable();
    if (!why || req.path === '/healthz' || req.path === '/readyz' || req.path === '/livez') return next();
    const connection = why === 'stopping' ? { Connection: 'close' } : {};
    res.set({ 'Retry-After': String(DRAIN_RETRY_AFTER_S), ...connection }).status(503).json({ error: why === 'stopping' ? 'server shutting down' : 'server starting', retryAfterS: DRAIN_RETRY_AFTER_S });
  });
  return app;
}

function addFinalHandlers(app: Express, logger: Logger): void {
  app.use('/api', (_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  app.use((_req, res) => {
    res.status(404).type('text/plain').send('Not found\n');
  });
  const onError: ErrorRequestHandler = (err: unknown, req, res, next) => {
    const e = (err ?? {}) as { status?: unknown; statusCode?: unknown; expose?: unknown; message?: unknown };
    const raw = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : 500;
    const status = raw >= 400 && raw < 600 ? raw : 500;
    if (status >= 500) logger.error({ err, method: req.method, url: req.originalUrl }, 'request failed');
    if (res.headersSent) {
      next(err);
      return;
    }
    // 4xx from body parsers and http-errors carry a message meant for the client; 5xx never do.
    const message = status < 500 && e.expose === true && typeof e.message === 'string' ? e.message : STATUS_CODES[status] ?? 'error';
    res.status(status).json({ error: message });
  };
  app.use(onError);
}

/**
 * Starts `palabre serve`: shared pieces (store, runtime, providers), the embedded MQTT broker
 * unless MQTT_URL is set, the HTTP server with /healthz and /metrics, then every surface.
 * Throws StartupError for a busy port or bad address, after closing what had started.
 */
export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const { config } = opts;
  const startedAt = Date.now();
  const timings: Record<string, number> = {};
  let lapAt = performance.now();
  const lap = (phase: string) => {
    const now = performance.now();
    timings[phase] = Math.round(now - lapAt);
    lapAt = now;
  };
  const app: App = await createApp({ config, ...(opts.logger ? { logger: opts.logger } : {}) });
  lap('app');
  const { logger } = app;
  // Started once the process serves: the provider lists are read in the background, never in the way.
  const models = watchModels(config, { logger, providers: app.providers });

  let broker: EmbeddedBroker | undefined;
  let mqttUrl: string;
  if (config.MQTT_URL) {
    mqttUrl = config.MQTT_URL;
  } else {
    try {
      broker = await startEmbeddedBroker({ host: config.MQTT_EMBEDDED_HOST, port: config.MQTT_EMBEDDED_PORT, logger });
    } catch (err) {
      await app.close();
      if (err instanceof ListenError) {
        throw new StartupError(
          portMessage(err, 'embedded MQTT broker', 'MQTT_EMBEDDED_PORT', 'MQTT_EMBEDDED_HOST', ', or MQTT_URL to use an external broker'),
          2,
          err,
        );
      }
      throw err;
    }
    mqttUrl = broker.url;
  }
  lap('mqtt');

  let ready = false;
  let stopping = false;
  // Surfaces still starting (warm-up: index, spelling engine…); null until their list is loaded.
  let warming: string[] | null = null;
  const expressApp = buildExpress(config, () => (stopping ? 'stopping' : ready ? undefined : 'starting'));
  const server: Server = createServer(expressApp);
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // Requests being answered: the drain waits for them (a POST /corrections/ee completes).
  let inFlight = 0;
  let idle: (() => void) | undefined;
  server.on('request', (_req, res) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
      if (inFlight === 0) idle?.();
    });
  });
  const requestsDone = (): Promise<void> => (inFlight === 0 ? Promise.resolve() : new Promise((resolve) => (idle = resolve)));
  const started: StartedSurface[] = [];

  // Live: the process answers (a supervisor restarts it otherwise). Ready: it should get new
  // connections — false while warming up, draining, or while its store does not answer, so a load
  // balancer polling /readyz stops sending work here first. /healthz answers as soon as HTTP
  // listens (start → /healthz must not wait for the warm-up), with `ready` in its body.
  expressApp.get('/livez', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ live: true, version: VERSION, status: stopping ? 'stopping' : ready ? 'ok' : 'warming' });
  });

  // What a load balancer polls every second: readiness and one `SELECT 1`, nothing else (the
  // surfaces' facts in /healthz may count rows).
  expressApp.get('/readyz', async (_req, res) => {
    if (!ready) {
      res.status(503).set('Cache-Control', 'no-store').json({ ready: false, status: stopping ? 'stopping' : 'warming', ...(stopping ? {} : { warming: warming ?? ['surfaces'] }) });
      return;
    }
    const store = await probeStore(app.store);
    res.status(store.reachable ? 200 : 503).set('Cache-Control', 'no-store')
      .json(store.reachable ? { ready: true, status: 'ok', store: store.engine, storeLatencyMs: store.latencyMs } : { ready: false, status: 'store_unreachable', store: store.engine });
  });

  expressApp.get('/healthz', async (_req, res) => {
    if (!ready) {
      const body = { status: stopping ? 'stopping' : 'warming', live: true, ready: false, version: VERSION, store: app.store.dialect, uptimeS: Math.round((Date.now() - startedAt) / 100) / 10, ...(stopping ? {} : { warming: warming ?? ['surfaces'] }) };
      res.status(stopping ? 503 : 200).set('Cache-Control', 'no-store').json(body);
      return;
    }
    const store = await probeStore(app.store);
    if (!store.reachable) {
      logger.warn({ store: store.engine, err: store.error }, 'store unreachable: /healthz not ready');
      res.status(503).set('Cache-Control', 'no-store').json({ status: 'store_unreachable', live: true, ready: false, version: VERSION, store: store.engine, storeError: store.error });
      return;
    }
    const providers = providersPerSurface(app);
    const offline = Object.entries(providers).filter(([, p]) => p === 'offline').map(([s]) => s);
    const surfaces: Record<string, unknown> = {};
    for (const { name, running } of started) {
      try {
        surfaces[name] = (await running.health?.()) ?? {};
      } catch (err) {
        surfaces[name] = { error: 'health check failed' };
        logger.warn({ err, surface: name }, 'surface health() threw');
      }
    }
    res.set('Cache-Control', 'no-store').json({
      status: 'ok',
      live: true,
      ready: true,
      version: VERSION,
      store: store.engine,
      storeLatencyMs: store.latencyMs,
      instance: config.INSTANCE_ID ?? hostname(),
      uptimeS: Math.round((Date.now() - startedAt) / 100) / 10,
      providers,
      offline: offline.length === 0
        ? 'no surface uses the offline provider'
        : `offline provider (deterministic, no network) for: ${offline.join(', ')}${app.providers.available().length <= 1 ? ' — no API key is set' : ''}`,
      actors: app.runtime.countByKind(),
      mqtt: broker ? 'embedded' : 'external',
      models: models.current(),
      surfaces,
    });
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

  let httpPort: number;
  try {
    httpPort = await listen(server, config.HOST, config.PORT);
  } catch (err) {
    await broker?.close();
    await app.close();
    if (err instanceof ListenError) throw new StartupError(portMessage(err, 'HTTP', 'PORT', 'HOST'), 2, err);
    throw err;
  }

  lap('http');
  const publicUrl = (config.PUBLIC_URL ?? `http://${displayHost(config.HOST)}:${httpPort}`).replace(/\/+$/, '');
  const ctx: AppContext = {
    config,
    logger,
    db: app.db,
    store: app.store,
    runtime: app.runtime,
    metrics: app.metrics,
    providers: app.providers,
    mqttUrl,
    publicUrl,
    modelStatus: () => models.current(),
  };
  const http: HttpContext = { app: expressApp, server };

  let shuttingDown: Promise<{ forced: boolean }> | undefined;
  const shutdown = (reason: string): Promise<{ forced: boolean }> => {
    shuttingDown ??= (async () => {
      const stopStart = Date.now();
      logger.info({ reason }, 'shutting down');
      ready = false;
      stopping = true;
      models.stop();
      const deadlineAt = stopStart + config.SHUTDOWN_TIMEOUT_MS;
      const requestsAtStop = inFlight;
      const work = (async () => {
        // Stop accepting: the port stays open while draining so that a new request gets 503 +
        // Retry-After (and /healthz `ready: false`) rather than a refused connection. Requests in
        // flight complete while every surface drains its own work (T2 sessions end and save,
        // Skull finishes its turn) within the same deadline.
        server.closeIdleConnections();
        const httpDone = requestsDone().then(() => server.closeIdleConnections());
        await Promise.all(
          [...started].reverse().map(async ({ name, running }) => {
            try {
              await running.stop({ deadlineAt });
            } catch (err) {
              logger.error({ err, surface: name }, 'surface stop failed');
            }
          }),
        );
        await httpDone;
        logger.info({ requests: requestsAtStop, ms: Date.now() - stopStart }, 'http requests in flight at the stop completed');
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        app.runtime.shutdown();
        for (const socket of sockets) socket.destroy();
        await closed;
        await broker?.close();
      })();
      const outcome = await withDeadline(work, config.SHUTDOWN_TIMEOUT_MS);
      const forced = outcome === 'timeout';
      if (forced) {
        logger.warn({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS, requestsCut: inFlight }, 'shutdown deadline reached: closing what is left');
        server.close();
        for (const socket of sockets) socket.destroy();
        void broker?.close();
      }
      logger.info({ forced, ms: Date.now() - stopStart }, 'stopped');
      await app.close();
      return { forced };
    })();
    return shuttingDown;
  };

  // Load every surface module at once (I/O overlaps), then start them one by one in list order.
  try {
    const loaded = selectSurfaces(await Promise.all((opts.surfaces ?? defaultSurfaces).map((load) => load())), config.SURFACES);
    lap('surfaces.load');
    warming = loaded.map((x) => x.name);
    for (const surface of loaded) {
      let running: RunningSurface;
      try {
        running = await surface.start(ctx, http);
      } catch (err) {
        throw new StartupError(`palabre: the ${surface.name} surface failed to start: ${err instanceof Error ? err.message : String(err)}`, 1, err);
      }
      started.push({ name: surface.name, running });
      warming = warming.filter((n) => n !== surface.name);
      lap(`surfaces.${surface.name}`);
    }
  } catch (err) {
    logger.error({ err }, 'startup failed');
    await shutdown('startup failed');
    throw err instanceof StartupError ? err : new StartupError(`palabre: startup failed: ${err instanceof Error ? err.message : String(err)}`, 1, err);
  }
  addFinalHandlers(expressApp, logger);

  const urls: Record<string, Record<string, string>> = {
    core: { health: `${publicUrl}/healthz`, metrics: `${publicUrl}/metrics` },
    mqtt: { broker: withoutPassword(mqttUrl) },
  };
  for (const { name, running } of started) {
    if (!running.urls || Object.keys(running.urls).length === 0) continue;
    const abs: Record<string, string> = {};
    for (const [key, path] of Object.entries(running.urls)) abs[key] = /^[a-z]+:\/\//.test(path) ? path : `${publicUrl}${path.startsWith('/') ? '' : '/'}${path}`;
    urls[name] = abs;
  }
  ready = true;
  models.start();
  // The start-up garbage and the grown young generation go back to the system once idle.
  setImmediate(() => {
    if (!stopping) collectAfterWarmUp();
  }).unref();
  return { ctx, http, mqttMode: broker ? 'embedded' : 'external', surfaces: started, timings, urls, models, shutdown };
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
