import type { z } from 'zod';

/** The keys of one section: environment variable names (UPPER_SNAKE), each with its zod schema. */
export type ConfigShape = Readonly<Record<string, z.ZodType>>;

/**
 * One section of the configuration, declared by its owner: core's own (core/config/schema.ts), a
 * shared service's (actors/llm/llmConfig.ts) or a surface's (`actors/<surface>/<surface>Config.ts`,
 * carried by its list entry, `lazySurface` in core/surfaceContract.ts). The loader, the redaction
 * and the generated tables read only what sections declare: core knows no key of another section.
 */
export interface ConfigSection<S extends ConfigShape = ConfigShape> {
  /** The heading of its table in docs/configuration.md and README.md. */
  readonly title: string;
  /** Its keys; every schema carries a `.describe()` text (the table's "meaning" column). */
  readonly shape: S;
  /** Its keys whose values are never printed, logged or sent to a page (nor quoted in an error). */
  readonly secrets?: readonly string[];
}

/** Declares a section, keeping the exact type of its keys (for `ConfigValues`); a secret must be one of them. */
export function configSection<const S extends ConfigShape, const K extends keyof S & string = never>(section: { title: string; shape: S; secrets?: readonly K[] }): ConfigSection<S> {
  return section;
}

/** The values of a section once loaded (defaults applied, strings coerced). */
export type ConfigValues<C> = C extends ConfigSection<infer S> ? z.output<z.ZodObject<S>> : never;

type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** The values of several sections at once: what `loadConfig` returns for that list. */
export type ConfigOf<L extends readonly ConfigSection[]> = Intersection<ConfigValues<L[number]>>;
