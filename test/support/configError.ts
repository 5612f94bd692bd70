import { ConfigError } from '../../core/config/load.js';

/** The ConfigError `fn` throws; any other outcome fails the test. */
export function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}
