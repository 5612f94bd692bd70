import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Router } from 'express';
import type { AnyStateMachine } from 'xstate';
import type { Config } from './config/schema.js';
import type { Logger } from './log.js';
import type { Db } from './store/db.js';
import type { PortableMigration, Store } from './store/sqlStore.js';
import type { Runtime } from './runtime.js';
import type { Metrics } from './metrics.js';
import type { SharedEngines } from './sharedEngines.js';
import type { AdminAuth } from './admin/adminAuth.js';
import type { MqttEdge, MqttService } from './mqtt/service.js';

/** Statecharts by name, loaded on demand: `palabre machines`, /inspect, the docs images, model tests. */
export type MachineRegistry = Readonly<Record<string, () => Promise<AnyStateMachine>>>;

/**
 * A surface is one kind of conversation (skull, docs, corrections, t2, inspect, echo). It DECLARES
 * what it brings in its composition root `actors/<surface>/surface.ts`; core consumes the list
 * (`actors/surfaces.ts`), provides the shared services once and mounts the edges it returns.
 *
 *   export const echoSurface: Surface = {            // actors/echo/surface.ts
 *     name: 'echo',
 *     machines: { echo: loadEchoChart },               // lazy: () => Promise<AnyStateMachine>
 *     migrations: ECHO_MIGRATIONS,
 *     async start(ctx) {
 *       const socket = echoSocket({ runtime: ctx.runtime, logger: ctx.logger });
 *       return { sockets: { [ECHO_PATH]: socket.upgrade }, health: socket.health, stop: socket.close };
 *     },
 *   };
 */
export interface Surface {
  name: string;
  /** Its statecharts, by name (lazy): the machine registry, /inspect, `palabre machines`, model tests. */
  machines?: Readonly<Record<string, () => Promise<AnyStateMachine>>>;
  /** Its tables on the store port; core applies every surface's, ordered by version, before any starts. */
  migrations?: readonly PortableMigration[];
  /** The title of its section of the one configuration schema (core/config/sections/). */
  configSection?: string;
  /** Provides its actors, builds its edges; everything it returns is mounted and supervised by core. */
  start(ctx: AppContext): Promise<RunningSurface>;
}

/** The list of surfaces is lazy: a command that does not start one never loads its modules. */
export type SurfaceLoader = () => Promise<Surface>;

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

/** What every surface gets when core starts it: the shared services, built once per process. */
export interface AppContext extends AppServices {
  config: Config;
  logger: Logger;
  /** The instance's SQLite file: stores not on the store port (kv). */
  db: Db;
  /** The store port (core/store/sqlStore.ts): SQLite over `db`, or Postgres with DATABASE_URL. */
  store?: Store;
  runtime: Runtime;
  metrics: Metrics;
  /** Admin login for /admin/* and /inspect (core/admin/adminAuth.ts), one per process. */
  admin: AdminAuth;
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
  engines?: SharedEngines;
}
