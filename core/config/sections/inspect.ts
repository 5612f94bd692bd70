import { z } from 'zod';

/** Statechart inspection (/inspect and Stately's inspector). */
export const inspectSection = {
  INSPECT_STATELY_URL: z.string().url().default('ws://localhost:8080').describe('WebSocket URL of the Stately inspector when INSPECT=stately'),
};
