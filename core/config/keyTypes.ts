import { z } from 'zod';

/**
 * Key types every section may use, whoever declares it (core, a shared service, a surface). Every
 * key is an environment variable name (UPPER_SNAKE); the optional JSON config file uses the same
 * names, so values arrive as strings and numbers are coerced.
 */

export const port = z.coerce.number().int().min(0).max(65535);
export const positiveInt = z.coerce.number().int().positive();
export const nonNegativeInt = z.coerce.number().int().min(0);
export const ms = z.coerce.number().int().min(0);
export const secret = z.string().min(1).optional();
