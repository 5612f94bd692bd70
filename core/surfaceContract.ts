import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Config } from './config/index.js';
import type { Logger } from './log.js';
import type { Db } from './store/db.js';
import type { Store } from './store/sqlStore.js';
import type { Runtime } from './runtime.js';
import type { Metrics } from './metrics.js';
import type { ProviderRegistry } from '../actors/llm/registry.js';
import type { ModelStatus } from '../actors/llm/modelStatus.js';
import type { SharedEngines } from './sharedEngines.js';

/** What every surface gets when the process starts it. */
export interface AppContext {
  config: Config;
  logger: Logger;
  /** The instance's SQLite file: stores not on the store port yet (visitor sessions, kv). */
  db: Db;
  /**
   * The store port (core/store/sqlStore.ts): SQLite over `db`, or Postgres with DATABASE_URL.
   * Absent in hand-built contexts (tests): `storeOf(ctx)` then gives SQLite over `db`.
   */
  store?: Store;
  runtime: Runtime;
  metrics: Metrics;
  providers: ProviderRegistry;
  /** The broker every MQTT surface connects to (embedded or MQTT_URL). */
  mqttUrl: string;
  /** Base URL the HTTP server is reachable at. */
  publicUrl: string;
  /**
   * Engines shared by several surfaces, stopped by core after every surface has drained. Absent in
   * hand-built contexts (tests): the owner then stops its engine itself.
   */
  engines?: SharedEngines;
  /** The latest model check (actors/llm/modelStatus.ts); absent when nothing checks. */
  modelStatus?: () => readonly ModelStatus[];
}

/** The HTTP server, for surfaces that add routes or WebSocket upgrades. */
export interface HttpContext {
  app: Express;
  server: Server;
}

/** The drain's budget: a surface finishes its in-flight work by `deadlineAt` (epoch ms). */
export interface StopOptions {
  deadlineAt: number;
}

export interface RunningSurface {
  /**
   * Called on shutdown; must stop its actors and close its sockets. With `deadlineAt` (a signal,
   * SHUTDOWN_TIMEOUT_MS) it first stops taking new work and finishes what is in flight by then.
   */
  stop(opts?: StopOptions): Promise<void>;
  /**
   * Why this surface should get no new connections right now (e.g. T2 fenced itself: its store
   * claims may be expiring), or undefined. /readyz and /healthz answer 503 while one says why.
   */
  unready?(): string | undefined;
  /** Extra facts for /healthz (e.g. provider in use, corpus size). Never secrets. May read the store. */
  health?(): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** URLs printed at start, e.g. { assistant: '/assistant' }. */
  urls?: Record<string, string>;
  /** Lines printed under the start banner (e.g. which grammar engine runs). */
  notes?(): string[];
}

/**
 * A surface (skull, docs, corrections, t2, inspect) plugs into `palabre serve` through this.
 * `http` is absent when the surface runs alone (e.g. `palabre skull`).
 */
export interface Surface {
  name: string;
  start(ctx: AppContext, http?: HttpContext): Promise<RunningSurface>;
}
