import type { RedisClient } from './connect-redis';
import { scanKeys } from './scan-keys';

/** Deletes every key under `${prefix}:` (SCAN, never KEYS), on a single node or every cluster master. */
export async function deleteKeysWithPrefix(redis: RedisClient, prefix: string): Promise<number> {
  let deleted = 0;
  await scanKeys(redis, `${prefix}:*`, async (keys) => {
    // One key per DEL: on a cluster the keys of one batch live in different slots.
    const counts = await Promise.all(keys.map((key) => redis.del(key)));
    deleted += counts.reduce((a, c) => a + c, 0);
  });
  return deleted;
}
