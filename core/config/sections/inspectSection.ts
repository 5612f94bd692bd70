import { z } from 'zod';
import { nonNegativeInt } from './shared.js';

/** Statechart inspection (/inspect and Stately's inspector). */
export const inspectSection = {
  INSPECT_STATELY_URL: z.string().url().default('ws://localhost:8080').describe('WebSocket URL of the Stately inspector when INSPECT=stately'),
  INSPECT_RETAIN_S: nonNegativeInt.max(86400).default(300).describe('How long /inspect keeps listing an ended conversation (greyed, with its final state and event log), in seconds; only while an inspector page is open'),
};
