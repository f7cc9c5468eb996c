import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../redis';

/** A Redis key prefix no other test run uses. */
export function uniquePrefix(label = 't'): string {
  return `test-${label}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Deletes every key under a prefix (SCAN, never KEYS), on a single node or every cluster master. */
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
