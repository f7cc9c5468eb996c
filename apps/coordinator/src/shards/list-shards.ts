import type { Frontier } from '@crawler/frontier';
import type { RedisClient } from '@crawler/adapters/redis';
import { Cluster } from 'ioredis';
import type { FleetRepository } from '../db/fleet-repository';
import { listShardsInput, type ShardView } from './list-shards.types';
import { shardMoveStoreOf } from './shard-move-store';

/** The node serving a key: the cluster's slot owner, or the one server. */
export async function nodeOf(redis: RedisClient, key: string): Promise<string | null> {
  if (redis instanceof Cluster) {
    const slot = Number(await redis.cluster('KEYSLOT', key));
    return redis.slots[slot]?.[0] ?? null;
  }
  const o = redis.options;
  return o.path ? o.path : `${o.host ?? '127.0.0.1'}:${o.port ?? 6379}`;
}

/**
 * `GET /v1/shards`: counters of each logical shard, read without changing anything (the
 * frontier's own stats also reclaim expired leases; this view does not).
 */
export async function listShards(
  deps: { redis: RedisClient; frontier: Frontier; store: { fleet: FleetRepository } },
  raw: unknown,
  now = Date.now(),
): Promise<{ items: ShardView[]; next_cursor: string | null }> {
  const input = listShardsInput.parse(raw);
  const { frontier: f, redis } = deps;
  const first = input.cursor === undefined ? 0 : input.cursor + 1;
  const last = Math.min(f.shards, first + input.limit);
  const recorded = new Map((await deps.store.fleet.shardMap()).map((r) => [r.shard, r]));
  const shown = Array.from({ length: Math.max(0, last - first) }, (_, i) => first + i);
  const moves = await shardMoveStoreOf(redis, f.keys.prefix).read(shown);
  const items = await Promise.all(
    Array.from({ length: Math.max(0, last - first) }, async (_, i) => {
      const s = first + i;
      const [[hosts, queued, moving], ready, leases, dead, node] = await Promise.all([
        redis.hmget(f.keys.stats(s), 'hosts', 'queued', 'moving'),
        redis.zcount(f.keys.ready(s), '-inf', now),
        redis.zcount(f.keys.leases(s), now, '+inf'),
        redis.llen(f.keys.dead(s)),
        nodeOf(redis, f.keys.ready(s)),
      ]);
      return {
        shard: s,
        hosts: Number(hosts ?? 0),
        queued_urls: Number(queued ?? 0),
        ready_hosts: ready,
        open_leases: leases,
        dead_letters: dead,
        node,
        node_since:
          node !== null && recorded.get(s)?.node === node
            ? recorded.get(s)!.since.toISOString()
            : null,
        frozen: moving === '1',
        move: moves.get(s) ?? null,
      };
    }),
  );
  return { items, next_cursor: last < f.shards ? String(last - 1) : null };
}
