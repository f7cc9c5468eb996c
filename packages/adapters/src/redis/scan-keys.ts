import type { RedisClient } from './connect-redis';

/**
 * Calls `onKeys` with each batch of keys matching the glob `match`, on a single node or on every
 * cluster master (SCAN, never KEYS: the server keeps serving between batches).
 */
export async function scanKeys(
  redis: RedisClient,
  match: string,
  onKeys: (keys: string[]) => void | Promise<void>,
): Promise<void> {
  const nodes = 'nodes' in redis ? redis.nodes('master') : [redis];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      cursor = next;
      await onKeys(keys);
    } while (cursor !== '0');
  }
}
