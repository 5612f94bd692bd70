import { readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';
import { configSections, type CoreConfig } from './schema.js';
import type { ConfigOf, ConfigSection } from './section.js';

export class ConfigError extends Error {
  /** One line per bad key, never containing a secret value. */
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}\nFix these keys in the environment, .env or the config file, then start again.`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface LoadOptions {
  /** Defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** JSON config file; defaults to env PALABRE_CONFIG. */
  file?: string;
  /** .env file to merge under the environment; defaults to ./.env when it exists. Pass null to skip. */
  dotenvPath?: string | null;
}

/** The secret keys of these sections (core's own included). */
function secretsOf(sections: readonly ConfigSection[]): ReadonlySet<string> {
  return new Set(sections.flatMap((s) => s.secrets ?? []));
}

function readJsonFile(path: string, known: ReadonlySet<string>, problems: string[]): Record<string, unknown> {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (err) {
    problems.push(`config file ${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // V8's message quotes the text around the error, which may be a secret: say only where.
    problems.push(`config file ${path}: not valid JSON`);
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(`config file ${path}: must hold one JSON object of KEY: value`);
    return {};
  }
  const obj = parsed as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!known.has(key)) problems.push(`${key}: unknown key in ${path}`);
  }
  return obj;
}

/** The raw values of every source, merged by precedence (defaults not applied). */
function mergeSources(known: ReadonlySet<string>, opts: LoadOptions, problems: string[]): Record<string, unknown> {
  const env = opts.env ?? process.env;
  const file = opts.file ?? env.PALABRE_CONFIG;
  const fromFile = file ? readJsonFile(resolve(file), known, problems) : {};

  let fromDotenv: Record<string, string> = {};
  const dotenvPath = opts.dotenvPath === undefined ? resolve('.env') : opts.dotenvPath;
  if (dotenvPath && existsSync(dotenvPath)) fromDotenv = parseDotenv(readFileSync(dotenvPath));

  const merged: Record<string, unknown> = { ...fromFile };
  for (const source of [fromDotenv, env]) {
    for (const [key, value] of Object.entries(source)) {
      if (known.has(key) && value !== undefined && value !== '') merged[key] = value;
    }
  }
  return merged;
}

/**
 * True when `key` was given by the environment, .env or the JSON file rather than left to its
 * default (e.g. CORPUS_DIR unset lets `palabre ask` use the folder `palabre index` indexed last).
 */
export function isKeySet(key: string, opts: LoadOptions = {}): boolean {
  const merged = mergeSources(new Set([key]), opts, []);
  return Object.hasOwn(merged, key) && merged[key] !== undefined && merged[key] !== '';
}

/**
 * Builds the configuration of core's sections and `declared` (the sections of the layers above,
 * core/config/schema.ts `configSections`): defaults < JSON file < .env < environment. Every
 * section must be in the list, since the JSON file rejects a key no section declares.
 * Empty strings in the environment count as unset, so `FOO=` does not fail validation.
 * Throws ConfigError listing every bad key at once.
 */
export function loadConfig<const L extends readonly ConfigSection[]>(declared: L, opts: LoadOptions = {}): CoreConfig & ConfigOf<L> {
  const sections = configSections(declared);
  const shape = Object.assign({}, ...sections.map((s) => s.shape)) as Record<string, z.ZodType>;
  const secrets = secretsOf(sections);
  const problems: string[] = [];
  const merged = mergeSources(new Set(Object.keys(shape)), opts, problems);
  const result = z.object(shape).safeParse(merged);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const key = issue.path.join('.') || '(root)';
      // zod messages may quote the received value; for secrets say only what is wrong.
      const message = secrets.has(key) ? describeSecretIssue(issue) : issue.message;
      problems.push(`${key}: ${message}`);
    }
  }
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  // The object holds exactly the keys of these sections, parsed by their schemas: their types.
  return result.data as CoreConfig & ConfigOf<L>;
}

function describeSecretIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'too_small') return 'too short';
  if (issue.code === 'invalid_type') return `expected ${String((issue as { expected?: string }).expected ?? 'a string')}`;
  return 'invalid value';
}

/** A copy safe to print or serve: the secrets of core's sections and `declared` replaced by "(set)" / absent. */
export function redactConfig(config: object, declared: readonly ConfigSection[]): Record<string, unknown> {
  const secrets = secretsOf(configSections(declared));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    out[key] = secrets.has(key) ? (value ? '(set)' : undefined) : value;
  }
  return out;
}
