import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Router } from 'express';
import type { AnyStateMachine } from 'xstate';
import type { CoreConfig } from './config/schema.js';
import type { ConfigSection, ConfigShape } from './config/section.js';
import type { Logger } from './log.js';
import type { Db } from './store/db.js';
import type { PortableMigration, Store } from './store/sqlStore.js';
import type { Runtime } from './runtime.js';
import type { Metrics } from './metrics.js';
import type { SharedEngines } from './sharedEngines.js';
import type { AdminAuth } from './admin/adminAuth.js';
import type { Authenticator } from './auth.js';
import type { MqttEdge, MqttService } from './mqtt/service.js';

/** Statecharts by name, loaded on demand: `palabre machines`, /inspect, the docs images, model tests. */
export type MachineRegistry = Readonly<Record<string, () => Promise<AnyStateMachine>>>;

/**
 * A surface is one kind of conversation (skull, docs, corrections, t2, inspect, echo). It DECLARES
 * what it brings in its composition root `actors/<surface>/surface.ts`; core consumes the list
 * (`actors/surfaces.ts`), provides the shared services once and mounts the edges it returns.
 *
 *   export const echoSurface: Surface<EchoConfig> = {  // actors/echo/surface.ts
 *     name: 'echo',
 *     machines: { echo: loadEchoChart },               // lazy: () => Promise<AnyStateMachine>
 *     migrations: ECHO_MIGRATIONS,
 *     config: echoConfig,                              // its section (actors/echo/echoConfig.ts)
 *     async start(ctx) {                               // ctx.config: CoreConfig & EchoConfig
 *       const socket = echoSocket({ runtime: ctx.runtime, logger: ctx.logger, maxText: ctx.config.ECHO_MAX_TEXT });
 *       return { sockets: { [ECHO_PATH]: socket.upgrade }, health: socket.health, stop: socket.close };
 *     },
 *   };
 */
export interface Surface<C = unknown> {
  name: string;
  /** Its statecharts, by name (lazy): the machine registry, /inspect, `palabre machines`, model tests. */
  machines?: Readonly<Record<string, () => Promise<AnyStateMachine>>>;
  /** Its tables on the store port; core applies every surface's, ordered by version, before any starts. */
  migrations?: readonly PortableMigration[];
  /**
   * Its section of the configuration (core/config/section.ts), in a module of its own: its list
   * entry carries the same object (`lazySurface`). `C` is what its `start` reads of the
   * configuration: its section's values, and those of the shared services it calls.
   */
  config?: ConfigSection;
  /** Provides its actors, builds its edges; everything it returns is mounted and supervised by core. */
  start(ctx: AppContext<C>): Promise<RunningSurface>;
}

/**
 * A surface in a list: its code lazily, so that a command that does not start it never loads its
 * modules (`palabre skull` on a Pi must not pull in the web server), but its configuration section
 * eagerly, so that every key is known before the configuration loads (the JSON file rejects a key
 * no section declares; docs:config, `palabre doctor` and the loader list every section).
 */
export interface SurfaceLoader<S extends ConfigShape = ConfigShape> {
  (): Promise<Surface>;
  readonly config?: ConfigSection<S>;
}

/**
 * The list entry of a surface whose section is `config` (a zod-only module): the section now, the
 * surface on the call, which must declare that same section (one source per section).
 */
export function lazySurface<S extends ConfigShape>(config: ConfigSection<S>, load: () => Promise<Surface>): SurfaceLoader<S> & { readonly config: ConfigSection<S> } {
  const loader = async (): Promise<Surface> => {
    const surface = await load();
    if (surface.config !== config) throw new Error(`the ${surface.name} surface declares another configuration section than its list entry carries (${config.title})`);
    return surface;
  };
  return Object.assign(loader, { config });
}

/** What a started surface hands back to core. */
export interface RunningSurface {
  /** Its HTTP routes and pages; core mounts them on the one server, in list order. */
  routes?: Router;
  /** Its WebSocket paths with their upgrade handler; core routes every upgrade by path. */
  sockets?: Readonly<Record<string, UpgradeHandler>>;
  /**
   * Its MQTT subscriptions, on the connection it got from `ctx.mqtt`: core subscribes them in
   * order, routes each message whose topic they match to `onMessage`, and unsubscribes them at the
   * start of the drain, before `stop`.
   */
  mqtt?: MqttEdge;
  /** Facts for /healthz, read from selectors its machines export. Never secrets. */
  health?(): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Why it should get no new connections now (/readyz and /healthz answer 503), or undefined. */
  unready?(): string | undefined;
  /**
   * The drain: stop taking work, finish what is in flight by `deadlineAt`, stop its actors and
   * sockets. Its MQTT filters are already unsubscribed; core ends its MQTT connection afterwards.
   */
  stop(opts?: StopOptions): Promise<void>;
  /** URLs printed at start, e.g. { assistant: '/assistant' }. */
  urls?: Record<string, string>;
  /** Lines printed under the start banner. */
  notes?(): string[];
}

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** The drain's budget: a surface finishes its in-flight work by `deadlineAt` (epoch ms). */
interface StopOptions {
  deadlineAt: number;
}

/**
 * Services the layers above core add to every context, declared by module augmentation
 * (actors/llm/llmServices.ts adds `providers`): core passes them through without knowing them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface AppServices {}

/**
 * What every surface gets when core starts it: the shared services, built once per process. Core
 * reads only `CoreConfig`; `C`, the rest of what the object holds (every section the process
 * loaded), is typed by the surface that reads it (`Surface<C>`).
 */
export interface AppContext<C = unknown> extends AppServices {
  config: CoreConfig & C;
  logger: Logger;
  /** The instance's SQLite file: stores not on the store port (kv). */
  db: Db;
  /** The store port (core/store/sqlStore.ts): SQLite over `db`, or Postgres with DATABASE_URL. */
  store: Store;
  runtime: Runtime;
  metrics: Metrics;
  /** Admin login for /admin/* and /inspect (core/admin/adminAuth.ts), one per process. */
  admin: AdminAuth;
  /** Candidates' bearer tokens (core/auth.ts: JWT_SECRET, JWT_JWKS_URL or the dev secret), one per process: one JWKS cache. */
  auth: Authenticator;
  /** Every machine of the surfaces this process knows, for the inspector. */
  machines?: MachineRegistry;
  /**
   * The process's MQTT service on its broker (embedded or MQTT_URL): a surface gets its own
   * connection from it (its client id, its last will); core/mqtt/service.ts.
   */
  mqtt: MqttService;
  /** Base URL the HTTP server is reachable at. */
  publicUrl: string;
  /** Engines shared by several surfaces, stopped by core after every surface has drained. */
  engines: SharedEngines;
}
