import type { Frontier } from '@crawler/frontier';
import { servesSlot, slotCount, type RedisClient } from '@crawler/adapters/redis';
import { Cluster } from 'ioredis';
import { addressOf, readClusterNodes, shardSlots } from './cluster-access';
import type { RedisNodesOutput } from './move-shard.types';

/**
 * `GET /v1/shards/nodes`: the masters of the Redis Cluster (those without slots too: a node just
 * added is where shards move to), with how many of this frontier's shards each serves. On a
 * single Redis: `cluster: false` and no node.
 */
export async function listRedisNodes(deps: {
  redis: RedisClient;
  frontier: Frontier;
}): Promise<RedisNodesOutput> {
  const { redis, frontier } = deps;
  if (!(redis instanceof Cluster)) return { cluster: false, nodes: [] };
  const masters = (await readClusterNodes(redis)).filter((n) => n.master);
  const slots = await shardSlots(redis, frontier);
  return {
    cluster: true,
    nodes: masters
      .map((n) => ({
        id: n.id,
        address: addressOf(n),
        hostname: n.hostname,
        slots: slotCount(n),
        shards: slots.filter((slot) => servesSlot(n, slot)).length,
      }))
      .sort((a, b) => a.address.localeCompare(b.address, 'en', { numeric: true })),
  };
}
