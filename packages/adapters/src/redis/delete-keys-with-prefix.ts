import type { RedisClient } from './connect-redis';
import { scanKeys } from './scan-keys';

/**
 * Deletes every key of a prefix (SCAN, never KEYS), on a single node or every cluster master:
 * those under `${prefix}:` and those whose hash tag opens with it, `{${prefix}:…}` — where
 * BullMQ keeps its queues (`{prefix:bull}:…`, one cluster slot per queue).
 */
export async function deleteKeysWithPrefix(redis: RedisClient, prefix: string): Promise<number> {
  let deleted = 0;
  for (const pattern of [`${prefix}:*`, `{${prefix}:*`]) {
    await scanKeys(redis, pattern, async (keys) => {
      // One key per DEL: on a cluster the keys of one batch live in different slots.
      const counts = await Promise.all(keys.map((key) => redis.del(key)));
      deleted += counts.reduce((a, c) => a + c, 0);
    });
  }
  return deleted;
}
