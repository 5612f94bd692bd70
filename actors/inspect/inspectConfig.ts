import { z } from 'zod';
import { configSection, type ConfigValues } from '../../core/config/section.js';
import { nonNegativeInt } from '../../core/config/keyTypes.js';

/**
 * The inspector's section (/inspect and Stately's inspector), declared by the inspect surface.
 * Its own module, zod only: `actors/surfaces.ts` carries it eagerly while the surface's code
 * stays unloaded.
 */
export const inspectConfig = configSection({
  title: 'Inspector',
  shape: {
    INSPECT: z.enum(['off', 'stately']).default('off').describe('`stately` attaches @statelyai/inspect'),
    INSPECT_STATELY_URL: z.string().url().default('ws://localhost:8080').describe('WebSocket URL of the Stately inspector when INSPECT=stately'),
    INSPECT_RETAIN_S: nonNegativeInt.max(86400).default(300).describe('How long /inspect keeps listing an ended conversation (greyed, with its final state and event log), in seconds; only while an inspector page is open'),
  },
});

export type InspectConfig = ConfigValues<typeof inspectConfig>;
