import { allMigrations } from '../../actors/serve.js';

/** Every migration of `palabre serve`'s surfaces and core's, in the order the store applies them. */
export const PORTABLE_MIGRATIONS = await allMigrations();
