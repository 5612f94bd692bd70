import { coreSection } from './sections/coreSection.js';
import { tuningSection } from './sections/tuningSection.js';
import type { ConfigOf, ConfigSection } from './section.js';

/**
 * What core reads of the configuration, and all it knows of it: its own sections, the process
 * (HTTP, MQTT, storage, logs, journal, admin login, tokens) and the runtime tuning.
 */
export type CoreConfig = ConfigOf<[typeof coreSection, typeof tuningSection]>;

/**
 * Every section a process loads, in the order of the generated tables: core's process section
 * first, the sections of the layers above (shared services, then surfaces, as they list them),
 * core's runtime tuning last. The same list feeds the loader, the redaction and the tables, so a
 * key is known, secret and documented by one declaration.
 */
export function configSections(declared: readonly ConfigSection[]): readonly ConfigSection[] {
  const all = [coreSection, ...declared, tuningSection];
  const seen = new Map<string, string>();
  for (const { title, shape } of new Set(all)) {
    for (const key of Object.keys(shape)) {
      const owner = seen.get(key);
      if (owner !== undefined) throw new Error(`configuration key ${key} is declared by two sections (${owner}, ${title})`);
      seen.set(key, title);
    }
  }
  return [...new Set(all)];
}

/** Every key of core's sections and `declared`, in table order. */
export function configKeys(declared: readonly ConfigSection[]): string[] {
  return configSections(declared).flatMap((s) => Object.keys(s.shape));
}
