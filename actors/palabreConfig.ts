import { loadConfig, type LoadOptions } from '../core/config/load.js';
import type { CoreConfig } from '../core/config/schema.js';
import type { ConfigOf } from '../core/config/section.js';
import { llmConfig } from './llm/llmConfig.js';
import { echoSurface, surfaces } from './surfaces.js';

/**
 * The sections of palabre's configuration above core's: the LLM providers' (a shared service), then
 * every surface's of the build in list order, the example's (echo) last. Every command loads them
 * all, whichever surfaces it starts: a key of the JSON file is known whatever SURFACES says, and
 * `palabre doctor` and `npm run docs:config` (docs/configuration.md) list every section.
 */
export const PALABRE_SECTIONS = [llmConfig, ...surfaces.map((s) => s.config), echoSurface.config] as const;

/** palabre's whole configuration: core's sections and `PALABRE_SECTIONS`. */
export type PalabreConfig = CoreConfig & ConfigOf<typeof PALABRE_SECTIONS>;

/**
 * Loads palabre's whole configuration: defaults < PALABRE_CONFIG JSON file < .env < environment
 * (core/config/load.ts). Throws ConfigError listing every bad key, one line each.
 */
export function loadPalabreConfig(opts: LoadOptions = {}): PalabreConfig {
  return loadConfig(PALABRE_SECTIONS, opts);
}
