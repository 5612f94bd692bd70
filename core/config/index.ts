export { loadConfig, isKeySet, redactConfig, ConfigError, type LoadOptions } from './load.js';
export { configSchema, configShape, SECRET_KEYS, type Config, type ConfigKey } from './schema.js';
