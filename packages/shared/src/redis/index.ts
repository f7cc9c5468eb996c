export { connectRedis, type RedisClient, RedisUnavailableError } from './connect-redis';
export { deleteKeysWithPrefix } from './delete-keys-with-prefix';
export { scanKeys } from './scan-keys';
