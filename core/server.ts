import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import express, { type ErrorRequestHandler, type Express, type Response } from 'express';
import helmet from 'helmet';
import type { CoreConfig } from './config/schema.js';
import { redactText, redactUrl, type Logger } from './log.js';
import { createApp, type App, type CreateAppOptions } from './app.js';
import { listen, ListenError, startEmbeddedBroker, type EmbeddedBroker } from './broker.js';
import { mountProbes, type Lifecycle, type StartedSurface } from './probes.js';
import { collectAfterWarmUp } from './tuning/gcAfterWarmUp.js';
import type { AppContext, MachineRegistry, RunningSurface, Surface, SurfaceLoader, UpgradeHandler } from './surfaceContract.js';
import { createAdminAuth, type AdminLoginView } from './admin/adminAuth.js';
import { createAuth } from './auth.js';
import { machineRegistry } from './machineRegistry.js';
import { errorMessage, errorStatus, wantsPage } from './http/errors.js';
import { routeUpgrades } from './http/upgrades.js';
import { createMqttService, type ProcessMqtt } from './mqtt/service.js';
import { drainSurfaces } from './surfaceHost.js';

/** A failure to start that the user can fix; `exitCode` 2 (busy port, bad host) or 1. */
export class StartupError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number, cause?: unknown) {
    super(message, { cause });
    this.name = 'StartupError';
    this.exitCode = exitCode;
  }
}

/** The site's own pages, drawn by web/ and handed in by the caller; JSON and bare forms without them. */
interface SitePages {
  /** An error page in the site's layout (404 with the path asked for, 5xx, admin refusals). */
  sendError(res: Response, status: number, opts?: { message?: string; path?: string }): void;
  /** The admin login form. */
  adminLogin(res: Response, view: AdminLoginView): void;
}

export interface ServeOptions<C extends CoreConfig = CoreConfig> {
  /** Loaded with every section of `surfaces` (core/config/load.ts); core reads `CoreConfig` of it. */
  config: C;
  /** Replaces the logger LOG_LEVEL/LOG_FILE describe (tests). */
  logger?: Logger;
  /** The surfaces to start, in order (actors/surfaces.ts); SURFACES may select some of them. */
  surfaces: readonly SurfaceLoader[];
  /** Services of the layers above core (actors/llm/llmServices.ts). */
  services?: CreateAppOptions<C>['services'];
  /** The charts the inspector offers; default: those of `surfaces` (and the runtime's). */
  machines?: MachineRegistry;
  pages?: SitePages;
}


/** The HTTP server of the process. */
export interface HttpServer {
  app: Express;
  server: Server;
}

export interface RunningServer<C = unknown> {
  ctx: AppContext<C>;
  http: HttpServer;
  /** `embedded` when this process runs the aedes broker, `external` when MQTT_URL names one. */
  mqttMode: 'embedded' | 'external';
  surfaces: StartedSurface[];
  /** Milliseconds spent in each start phase (for the ready log line and the start benchmark). */
  timings: Record<string, number>;
  /** Absolute URLs per surface, for printing. */
  urls: Record<string, Record<string, string>>;
  /** Stops everything within SHUTDOWN_TIMEOUT_MS; `forced` when the deadline cut it short. */
  shutdown(reason: string): Promise<ShutdownOutcome>;
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
function selectSurfaces(all: readonly Surface[], setting: string): Surface[] {
  const wanted = setting.trim();
  if (wanted === 'all') return [...all];
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
const DRAIN_RETRY_AFTER_S = 5;

/**
 * The bare Express app: proxy trust, production mode, helmet's security headers with our CSP, and
 * the 503 + Retry-After gate while warming up or draining. `/healthz`, `/livez`, `/readyz`,
 * `/metrics`, the surfaces, the JSON 404 and the error handler are added by `startServer`.
 */
function buildExpress(config: CoreConfig, unavailable: () => 'starting' | 'stopping' | undefined): Express {
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

function addFinalHandlers(app: Express, logger: Logger, pages: SitePages | undefined): void {
  // A browser gets the site's error page (layout, title, lang, main landmark); /api and JSON clients get JSON.
  app.use((req, res) => {
    if (pages && wantsPage(req)) pages.sendError(res, 404, { path: req.path });
    else res.status(404).json({ error: 'not found' });
  });
  const onError: ErrorRequestHandler = (err: unknown, req, res, next) => {
    const status = errorStatus(err);
    if (status >= 500) logger.error({ err, method: req.method, url: req.originalUrl }, 'request failed');
    if (res.headersSent) {
      next(err);
      return;
    }
    if (pages && wantsPage(req)) pages.sendError(res, status);
    else res.status(status).json({ error: errorMessage(err, status) });
  };
  app.use(onError);
}

/**
 * Starts `palabre serve`: loads the surfaces, builds the shared services once (store with every
 * surface's migrations, runtime, metrics, admin auth, the services of the layers above), the
 * embedded MQTT broker unless MQTT_URL is set and the MQTT service on it (core/mqtt/service.ts),
 * the HTTP server with its probes (core/probes.ts), then starts every surface and mounts the
 * routes, sockets and MQTT subscriptions it declares.
 * Throws StartupError for a busy port or bad address, after closing what had started.
 */
export async function startServer<C extends CoreConfig>(opts: ServeOptions<C>): Promise<RunningServer<C>> {
  const { config } = opts;
  const startedAt = Date.now();
  const timings: Record<string, number> = {};
  const lap = lapTimer(timings);
  const known = await Promise.all(opts.surfaces.map((load) => load()));
  const selected = selectSurfaces(known, config.SURFACES);
  lap('surfaces.load');
  const app: App = await createApp({ config, surfaces: selected, ...(opts.logger ? { logger: opts.logger } : {}), ...(opts.services ? { services: opts.services } : {}) });
  lap('app');
  const { logger } = app;
  const { broker, mqttUrl } = await startBroker(config, app);
  // In `palabre serve` an unreachable MQTT_URL must fail the start of a surface that connects, not hang it.
  const mqtt = createMqttService({ url: mqttUrl, logger, connectTimeoutMs: 10_000 });
  lap('mqtt');

  const state: Lifecycle = { ready: false, stopping: false, warming: null };
  const expressApp = buildExpress(config, () => (state.stopping ? 'stopping' : state.ready ? undefined : 'starting'));
  const server: Server = createServer(expressApp);
  const connections = trackConnections(server);
  const started: StartedSurface[] = [];
  mountProbes(expressApp, { app, state, startedAt, started, mqttMode: broker ? 'embedded' : 'external', mqtt });
  const admin = createAdminAuth({
    db: app.db, store: app.store, config, logger,
    ...(opts.pages ? { loginPage: opts.pages.adminLogin, errorPage: (res: Response, status: number, message: string) => opts.pages?.sendError(res, status, { message }) } : {}),
  });
  expressApp.use(admin.routes);
  const sockets = new Map<string, UpgradeHandler>();
  routeUpgrades(server, sockets);
  const httpPort = await listenHttp(server, config, async () => {
    await broker?.close();
    await app.close();
  });
  lap('http');

  const publicUrl = (config.PUBLIC_URL ?? `http://${displayHost(config.HOST)}:${httpPort}`).replace(/\/+$/, '');
  const ctx: AppContext<C> = {
    ...app.services.context,
    config,
    logger,
    db: app.db,
    store: app.store,
    runtime: app.runtime,
    metrics: app.metrics,
    engines: app.engines,
    admin,
    auth: createAuth(config, { logger }),
    machines: opts.machines ?? machineRegistry(known),
    mqtt,
    publicUrl,
  };
  const http: HttpServer = { app: expressApp, server };
  let shuttingDown: Promise<ShutdownOutcome> | undefined;
  const shutdown = (reason: string): Promise<ShutdownOutcome> =>
    (shuttingDown ??= stopAll({ app, config, state, server, connections, started, broker, mqtt }, reason));

  try {
    await startSurfaces(selected, { ctx, http, sockets, mqtt, state, started, lap });
  } catch (err) {
    logger.error({ err }, 'startup failed');
    await shutdown('startup failed');
    throw err instanceof StartupError ? err : new StartupError(`palabre: startup failed: ${err instanceof Error ? err.message : String(err)}`, 1, err);
  }
  addFinalHandlers(expressApp, logger, opts.pages);
  const urls = surfaceUrls(publicUrl, mqttUrl, started);
  state.ready = true;
  app.services.start?.();
  // The start-up garbage and the grown young generation go back to the system once idle.
  setImmediate(() => {
    if (!state.stopping) collectAfterWarmUp();
  }).unref();
  return { ctx, http, mqttMode: broker ? 'embedded' : 'external', surfaces: started, timings, urls, shutdown };
}

/** Records the milliseconds of each start phase since the previous one. */
function lapTimer(timings: Record<string, number>): (phase: string) => void {
  let lapAt = performance.now();
  return (phase) => {
    const now = performance.now();
    timings[phase] = Math.round(now - lapAt);
    lapAt = now;
  };
}

/** The embedded aedes broker, unless MQTT_URL names an external one. */
async function startBroker(config: CoreConfig, app: App): Promise<{ broker: EmbeddedBroker | undefined; mqttUrl: string }> {
  if (config.MQTT_URL) return { broker: undefined, mqttUrl: config.MQTT_URL };
  try {
    const broker = await startEmbeddedBroker({ host: config.MQTT_EMBEDDED_HOST, port: config.MQTT_EMBEDDED_PORT, logger: app.logger });
    return { broker, mqttUrl: broker.url };
  } catch (err) {
    await app.close();
    if (err instanceof ListenError) {
      throw new StartupError(portMessage(err, 'embedded MQTT broker', 'MQTT_EMBEDDED_PORT', 'MQTT_EMBEDDED_HOST', ', or MQTT_URL to use an external broker'), 2, err);
    }
    throw err;
  }
}

/** Listens on HOST:PORT; on failure closes what started (`undo`) and says which setting to change. */
async function listenHttp(server: Server, config: CoreConfig, undo: () => Promise<void>): Promise<number> {
  try {
    return await listen(server, config.HOST, config.PORT);
  } catch (err) {
    await undo();
    if (err instanceof ListenError) throw new StartupError(portMessage(err, 'HTTP', 'PORT', 'HOST'), 2, err);
    throw err;
  }
}

interface Connections {
  sockets: Set<Socket>;
  /** Requests being answered now. */
  inFlight(): number;
  /** Resolves when no request is being answered. */
  requestsDone(): Promise<void>;
}

/** Open sockets and requests in flight: the drain waits for the requests (a POST /corrections/ee completes). */
function trackConnections(server: Server): Connections {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let inFlight = 0;
  let idle: (() => void) | undefined;
  server.on('request', (_req, res) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
      if (inFlight === 0) idle?.();
    });
  });
  return {
    sockets,
    inFlight: () => inFlight,
    requestsDone: () => (inFlight === 0 ? Promise.resolve() : new Promise((resolve) => (idle = resolve))),
  };
}

/**
 * Mounts what a started surface declared over HTTP: its routes on the app, its WebSocket paths in
 * the upgrade routing. A path two surfaces declare is a mistake, refused here.
 */
function mountHttp(http: HttpServer, sockets: Map<string, UpgradeHandler>, name: string, running: RunningSurface): void {
  if (running.routes) http.app.use(running.routes);
  for (const [path, handler] of Object.entries(running.sockets ?? {})) {
    if (sockets.has(path)) throw new Error(`the WebSocket path ${path} of ${name} is already taken`);
    sockets.set(path, handler);
  }
}

/** Mounts started surfaces on a server of one's own (tests, embedding), routed as core routes them. */
export function surfaceMounter(http: HttpServer): (name: string, running: RunningSurface) => void {
  const sockets = new Map<string, UpgradeHandler>();
  routeUpgrades(http.server, sockets);
  return (name, running) => mountHttp(http, sockets, name, running);
}

/** Starts the surfaces one by one in list order, mounting each one's edges as it is ready. */
async function startSurfaces(loaded: readonly Surface[], s: { ctx: AppContext; http: HttpServer; sockets: Map<string, UpgradeHandler>; mqtt: ProcessMqtt; state: Lifecycle; started: StartedSurface[]; lap: (phase: string) => void }): Promise<void> {
  s.state.warming = loaded.map((x) => x.name);
  for (const surface of loaded) {
    let running: RunningSurface;
    try {
      running = await surface.start(s.ctx);
    } catch (err) {
      throw new StartupError(`palabre: the ${surface.name} surface failed to start: ${err instanceof Error ? err.message : String(err)}`, 1, err);
    }
    s.started.push({ name: surface.name, running });
    // Every edge it declared, in one place: routes, WebSocket paths, MQTT subscriptions.
    try {
      mountHttp(s.http, s.sockets, surface.name, running);
      if (running.mqtt) await s.mqtt.mount(surface.name, running.mqtt);
    } catch (err) {
      throw new StartupError(`palabre: the ${surface.name} surface cannot be mounted: ${(err as Error).message}`, 1, err);
    }
    s.state.warming = s.state.warming.filter((n) => n !== surface.name);
    s.lap(`surfaces.${surface.name}`);
  }
}

/** Absolute URLs to print: the probes, the broker (without its password), each surface's pages. */
function surfaceUrls(publicUrl: string, mqttUrl: string, started: readonly StartedSurface[]): Record<string, Record<string, string>> {
  const urls: Record<string, Record<string, string>> = {
    core: { health: `${publicUrl}/healthz`, metrics: `${publicUrl}/metrics` },
    mqtt: { broker: redactUrl(mqttUrl) },
  };
  for (const { name, running } of started) {
    if (!running.urls || Object.keys(running.urls).length === 0) continue;
    const abs: Record<string, string> = {};
    // A surface's line may quote a URL given in the configuration (the broker's, with its password).
    for (const [key, path] of Object.entries(running.urls)) abs[key] = redactText(/^[a-z]+:\/\//.test(path) ? path : `${publicUrl}${path.startsWith('/') ? '' : '/'}${path}`);
    urls[name] = abs;
  }
  return urls;
}

interface Stoppable {
  app: App;
  config: CoreConfig;
  state: Lifecycle;
  server: Server;
  connections: Connections;
  started: readonly StartedSurface[];
  broker: EmbeddedBroker | undefined;
  mqtt: ProcessMqtt;
}

/** How a stop went: `forced` when the deadline cut it; `failed` names surfaces whose stop threw. */
interface ShutdownOutcome {
  forced: boolean;
  failed?: string[];
}

/** The stop, within SHUTDOWN_TIMEOUT_MS: what is left at the deadline is closed by force. */
async function stopAll(s: Stoppable, reason: string): Promise<ShutdownOutcome> {
  const { app, config, server, connections, broker } = s;
  const { logger } = app;
  const stopStart = Date.now();
  logger.info({ reason }, 'shutting down');
  s.state.ready = false;
  s.state.stopping = true;
  s.app.services.stop?.();
  const failed: string[] = [];
  const outcome = await withDeadline(drainAndClose(s, stopStart + config.SHUTDOWN_TIMEOUT_MS, failed), config.SHUTDOWN_TIMEOUT_MS);
  const forced = outcome === 'timeout';
  if (forced) {
    logger.warn({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS, requestsCut: connections.inFlight() }, 'shutdown deadline reached: closing what is left');
    server.close();
    for (const socket of connections.sockets) socket.destroy();
    void s.mqtt.close({ force: true }).then(() => broker?.close());
  }
  logger[failed.length > 0 ? 'warn' : 'info']({ forced, ...(failed.length > 0 ? { failed } : {}), ms: Date.now() - stopStart }, 'stopped');
  await app.close();
  return { forced, ...(failed.length > 0 ? { failed: [...failed] } : {}) };
}

/**
 * Stop accepting: the port stays open while draining so that a new request gets 503 +
 * Retry-After (and /healthz `ready: false`) rather than a refused connection; each surface's MQTT
 * filters are unsubscribed. Requests in flight complete while every surface drains its own work
 * (T2 sessions end and save, Skull finishes its turn) within the same deadline; then the MQTT
 * connections end, then the engines surfaces share (Grammalecte), the server, the actors and the
 * broker close.
 */
async function drainAndClose(s: Stoppable, deadlineAt: number, failed: string[]): Promise<void> {
  const { app, server, connections } = s;
  const stopStart = Date.now();
  const requestsAtStop = connections.inFlight();
  server.closeIdleConnections();
  const httpDone = connections.requestsDone().then(() => server.closeIdleConnections());
  await drainSurfaces(s.started, s.mqtt, deadlineAt, failed, app.logger);
  await httpDone;
  app.logger.info({ requests: requestsAtStop, ms: Date.now() - stopStart }, 'http requests in flight at the stop completed');
  // Only now: T2's drained sessions and the last HTTP corrections were graded with these engines.
  await app.engines.stop();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  app.runtime.shutdown();
  for (const socket of connections.sockets) socket.destroy();
  await closed;
  await s.broker?.close();
}
