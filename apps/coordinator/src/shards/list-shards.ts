import type { Frontier } from '@crawler/frontier';
import { isClusterRedirect, type RedisClient } from '@crawler/adapters/redis';
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
 * frontier's own stats also reclaim expired leases; this view does not). While a shard's slot
 * moves (or just moved), its reads are redirected (ASK, MOVED), and ioredis follows a redirect
 * only for a command sent alone: one inside an auto-pipeline with other shards' replies fails the
 * whole batch (see connectRedis). So a batch that failed on a redirect is read again one command
 * at a time, each following its own redirect.
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
  const readAll = (go: Go) => Promise.all(shown.map((s) => readShard(deps, s, now, go)));
  const read = await readAll(atOnce).catch((err: unknown) => {
    if (!isClusterRedirect(err)) throw err;
    return readAll(oneAtATime());
  });
  const items = read.map((r) => ({
    ...r,
    node_since:
      r.node !== null && recorded.get(r.shard)?.node === r.node
        ? recorded.get(r.shard)!.since.toISOString()
        : null,
    move: moves.get(r.shard) ?? null,
  }));
  return { items, next_cursor: last < f.shards ? String(last - 1) : null };
}

/** Starts a Redis call: at once, or after the previous one answered. */
type Go = <T>(call: () => Promise<T>) => Promise<T>;
const atOnce: Go = (call) => call();
function oneAtATime(): Go {
  let previous: Promise<unknown> = Promise.resolve();
  return (call) => {
    const next = previous.then(call);
    previous = next.catch(() => undefined);
    return next;
  };
}

async function readShard(
  deps: { redis: RedisClient; frontier: Frontier },
  s: number,
  now: number,
  go: Go,
) {
  const { frontier: f, redis } = deps;
  const [[hosts, queued, moving], ready, leases, dead, node] = await Promise.all([
    go(() => redis.hmget(f.keys.stats(s), 'hosts', 'queued', 'moving')),
    go(() => f.readyCount(s, now)),
    go(() => redis.zcount(f.keys.leases(s), now, '+inf')),
    go(() => redis.llen(f.keys.dead(s))),
    go(() => nodeOf(redis, f.keys.ready(s))),
  ]);
  return {
    shard: s,
    hosts: Number(hosts ?? 0),
    queued_urls: Number(queued ?? 0),
    ready_hosts: ready,
    open_leases: leases,
    dead_letters: dead,
    node,
    frozen: moving === '1',
  };
}
