import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import express, { type ErrorRequestHandler, type Express } from 'express';
import helmet from 'helmet';
import type { Config } from './config/index.js';
import type { Logger } from './log.js';
import { createApp, type App } from './app.js';
import { listen, ListenError, startEmbeddedBroker, type EmbeddedBroker } from './broker.js';
import { surfaces as defaultSurfaces, type SurfaceLoader } from './surfaces.js';
import type { AppContext, HttpContext, RunningSurface, Surface } from './surface.js';
import { VERSION } from './version.js';
import type { ProviderName } from '../actors/llm/types.js';

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
  const pick = (setting: ProviderName | 'auto'): ProviderName =>
    providers.resolve(setting === 'auto' ? config.LLM_PROVIDER : setting).name;
  return {
    skull: pick(config.SKULL_PROVIDER),
    docs: pick(config.CHAT_PROVIDER),
    corrections: pick(config.CORRECTION_PROVIDER),
    // The live interlocutor is Gemini Live; without a Gemini key T2 falls back to its text mode.
    t2: providers.available().includes('gemini') ? 'gemini' : pick(config.T2_TEXT_PROVIDER),
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

/**
 * The bare Express app: proxy trust, production mode and helmet's security headers with our CSP.
 * `/healthz`, `/metrics`, the surfaces, the JSON 404 and the error handler are added by `startServer`.
 */
function buildExpress(config: Config): Express {
  const app = express();
  app.set('trust proxy', config.TRUST_PROXY);
  app.set('env', 'production'); // never render stack traces in default error pages
  app.use(helmet({ contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES } }));
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

  const expressApp = buildExpress(config);
  const server: Server = createServer(expressApp);
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  let ready = false;
  let stopping = false;
  const started: StartedSurface[] = [];

  expressApp.get('/healthz', (_req, res) => {
    if (!ready) {
      res.status(503).json({ status: stopping ? 'stopping' : 'starting', version: VERSION });
      return;
    }
    const providers = providersPerSurface(app);
    const offline = Object.entries(providers).filter(([, p]) => p === 'offline').map(([s]) => s);
    const surfaces: Record<string, unknown> = {};
    for (const { name, running } of started) {
      try {
        surfaces[name] = running.health?.() ?? {};
      } catch (err) {
        surfaces[name] = { error: 'health check failed' };
        logger.warn({ err, surface: name }, 'surface health() threw');
      }
    }
    res.set('Cache-Control', 'no-store').json({
      status: 'ok',
      version: VERSION,
      uptimeS: Math.round((Date.now() - startedAt) / 100) / 10,
      providers,
      offline: offline.length === 0
        ? 'no surface uses the offline provider'
        : `offline provider (deterministic, no network) for: ${offline.join(', ')}${app.providers.available().length <= 1 ? ' — no API key is set' : ''}`,
      actors: app.runtime.countByKind(),
      mqtt: broker ? 'embedded' : 'external',
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
    runtime: app.runtime,
    metrics: app.metrics,
    providers: app.providers,
    mqttUrl,
    publicUrl,
  };
  const http: HttpContext = { app: expressApp, server };

  let shuttingDown: Promise<{ forced: boolean }> | undefined;
  const shutdown = (reason: string): Promise<{ forced: boolean }> => {
    shuttingDown ??= (async () => {
      const stopStart = Date.now();
      logger.info({ reason }, 'shutting down');
      ready = false;
      stopping = true;
      const work = (async () => {
        // Stop accepting, let idle keep-alive sockets go, then surfaces (their actors, their sockets).
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        for (const { name, running } of [...started].reverse()) {
          try {
            await running.stop();
          } catch (err) {
            logger.error({ err, surface: name }, 'surface stop failed');
          }
        }
        app.runtime.shutdown();
        for (const socket of sockets) socket.destroy();
        await closed;
        await broker?.close();
      })();
      const outcome = await withDeadline(work, config.SHUTDOWN_TIMEOUT_MS);
      const forced = outcome === 'timeout';
      if (forced) {
        logger.warn({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'shutdown deadline reached: closing what is left');
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
    for (const surface of loaded) {
      let running: RunningSurface;
      try {
        running = await surface.start(ctx, http);
      } catch (err) {
        throw new StartupError(`palabre: the ${surface.name} surface failed to start: ${err instanceof Error ? err.message : String(err)}`, 1, err);
      }
      started.push({ name: surface.name, running });
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
  return { ctx, http, mqttMode: broker ? 'embedded' : 'external', surfaces: started, timings, urls, shutdown };
}
