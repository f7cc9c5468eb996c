export { loadConfig, type Config, ConfigError } from './config';
