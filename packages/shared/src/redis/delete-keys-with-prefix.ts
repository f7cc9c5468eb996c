import type { RedisClient } from './connect-redis';

/** Deletes every key under `${prefix}:` (SCAN, never KEYS), on a single node or every cluster master. */
export async function deleteKeysWithPrefix(redis: RedisClient, prefix: string): Promise<number> {
  const nodes = 'nodes' in redis ? redis.nodes('master') : [redis];
  let deleted = 0;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) deleted += await node.del(key);
    } while (cursor !== '0');
  }
  return deleted;
}
