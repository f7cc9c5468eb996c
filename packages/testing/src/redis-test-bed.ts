import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { uniquePrefix } from './unique-prefix';

/**
 * One test file's connection to the machine's Redis (REDIS_URL) under a key prefix of its own:
 * `open()` in beforeAll connects (and returns the client), `close()` in afterAll deletes every
 * key under the prefix and disconnects.
 */
export function redisTestBed(label: string): {
  prefix: string;
  open: () => Promise<RedisClient>;
  close: () => Promise<void>;
} {
  const prefix = uniquePrefix(label);
  let client: RedisClient | undefined;
  return {
    prefix,
    open: async () => {
      client = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      return client;
    },
    close: async () => {
      if (!client) return;
      await deleteKeysWithPrefix(client, prefix);
      client.disconnect();
    },
  };
}
