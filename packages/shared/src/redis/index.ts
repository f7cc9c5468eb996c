export { connectRedis, type RedisClient, RedisUnavailableError } from './connect-redis';
