import { startServer as startCore, type RunningServer, type ServeOptions } from '../core/server.js';
import { migrationsOf } from '../core/app.js';
import { machineRegistry } from '../core/machineRegistry.js';
import type { MachineRegistry, SurfaceLoader } from '../core/surfaceContract.js';
import type { PortableMigration } from '../core/store/sqlStore.js';
import { sendAdminLoginPage } from '../web/admin/loginPage.js';
import { sendErrorPage } from '../web/errorPage.js';
import { llmServices, type LlmServices } from './llm/llmServices.js';
import type { ModelWatch } from './llm/modelStatus.js';
import { surfaces as defaultSurfaces } from './surfaces.js';
import type { PalabreConfig } from './palabreConfig.js';

/** The running process, with the background model check (/healthz `models`). */
export type PalabreServer = RunningServer<PalabreConfig> & { models: ModelWatch };

/** `config`: palabre's whole configuration (actors/palabreConfig.ts `loadPalabreConfig`). */
export type StartOptions = Omit<ServeOptions<PalabreConfig>, 'surfaces' | 'services' | 'pages'> & { surfaces?: readonly SurfaceLoader[] };

/**
 * The process's composition root: core's server with palabre's surfaces (actors/surfaces.ts), the
 * LLM services and the site's error and login pages.
 */
export async function startServer(opts: StartOptions): Promise<PalabreServer> {
  let llm: LlmServices | undefined;
  const surfaces = opts.surfaces ?? defaultSurfaces;
  const server = await startCore({
    ...opts,
    surfaces,
    // The inspector draws every chart of the build, whichever surfaces this process starts.
    machines: await allMachines([...defaultSurfaces, ...surfaces]),
    services: (core) => (llm = llmServices(core)),
    pages: { sendError: sendErrorPage, adminLogin: sendAdminLoginPage },
  });
  if (!llm) throw new Error('the LLM services were not built');
  return { ...server, models: llm.models };
}

/** Every migration of these surfaces and core's, in the order the store applies them. */
export async function allMigrations(list: readonly SurfaceLoader[] = defaultSurfaces): Promise<PortableMigration[]> {
  return migrationsOf(await Promise.all(list.map((load) => load())));
}

/** Every machine of these surfaces and the runtime's own (`palabre machines`, docs images, model tests). */
export async function allMachines(list: readonly SurfaceLoader[] = defaultSurfaces): Promise<MachineRegistry> {
  return machineRegistry(await Promise.all(list.map((load) => load())));
}
