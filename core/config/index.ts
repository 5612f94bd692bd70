export { loadConfig, isKeySet, redactConfig, ConfigError, type LoadOptions } from './load.js';
export { configShape, SECRET_KEYS, type Config } from './schema.js';
