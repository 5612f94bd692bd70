import { z } from 'zod';
import { coreSection } from './sections/coreSection.js';
import { llmSection } from './sections/llmSection.js';
import { skullSection } from './sections/skullSection.js';
import { docsSection } from './sections/docsSection.js';
import { correctionsSection } from './sections/correctionsSection.js';
import { t2Section } from './sections/t2Section.js';
import { inspectSection } from './sections/inspectSection.js';
import { tuningSection } from './sections/tuningSection.js';

/**
 * The one configuration schema. Each surface owns a section file; keys are environment variable
 * names and the same names are accepted in the JSON config file. Unknown keys are ignored (the
 * environment holds many unrelated variables), except in the JSON file where they are rejected.
 */
export const configShape = {
  ...coreSection,
  ...llmSection,
  ...skullSection,
  ...docsSection,
  ...correctionsSection,
  ...t2Section,
  ...inspectSection,
  ...tuningSection,
};

/** The sections in documentation order, with the title the generated tables use. */
export const CONFIG_SECTIONS: ReadonlyArray<{ title: string; shape: Record<string, z.ZodType> }> = [
  { title: 'Process (HTTP, MQTT, storage, logs)', shape: coreSection },
  { title: 'LLM providers and resilience', shape: llmSection },
  { title: 'Skull', shape: skullSection },
  { title: 'Docs assistant', shape: docsSection },
  { title: 'Corrections', shape: correctionsSection },
  { title: 'T2 live', shape: t2Section },
  { title: 'Inspector', shape: inspectSection },
  { title: 'Runtime tuning', shape: tuningSection },
];

export const configSchema = z.object(configShape);
export type Config = z.infer<typeof configSchema>;

/** Keys whose values are never printed, logged or sent to a page. */
export const SECRET_KEYS: ReadonlySet<string> = new Set([
  'OPENAI_API_KEY',
  'DATABASE_URL',
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'SKULL_API_KEY',
  'CHAT_API_KEY',
  'CORRECTION_API_KEY',
  'T2_TEXT_API_KEY',
  'ADMIN_PASSWORD',
  'SESSION_SECRET',
  'JWT_SECRET',
]);
