import {
  parseClusterNodes,
  SlotMigrator,
  type ClusterNode,
  type RedisClient,
} from '@crawler/adapters/redis';
import type { Frontier } from '@crawler/frontier';
import { Cluster } from 'ioredis';
import { AppError } from '../api/app-error';

/** `host:port` of a node, as CLUSTER NODES announces it. */
export function addressOf(node: Pick<ClusterNode, 'host' | 'port'>): string {
  return `${node.host}:${node.port}`;
}

/**
 * The cluster client, or a 409 `CONFLICT` (`details.reason` SHARD_MOVE_NOT_CLUSTER) on a single
 * Redis, where a shard has nowhere to move.
 */
export function requireCluster(redis: RedisClient): Cluster {
  if (redis instanceof Cluster) return redis;
  throw new AppError(
    'CONFLICT',
    'shards move between the masters of a Redis Cluster; this coordinator uses a single Redis ' +
      '(REDIS_CLUSTER is off), where every shard lives on the one node',
    { reason: 'SHARD_MOVE_NOT_CLUSTER' },
  );
}

/**
 * The slot steps with the credentials of the cluster client's own node connections (ACL user,
 * password, TLS), so they reach every node the client does and MIGRATE logs in to the target.
 */
export function migratorFor(cluster: Cluster): SlotMigrator {
  const o = cluster.options.redisOptions ?? {};
  return new SlotMigrator({
    ...(o.username ? { username: o.username } : {}),
    ...(o.password ? { password: o.password } : {}),
    ...(o.tls ? { tls: o.tls } : {}),
    connectTimeoutMs: 3000,
  });
}

/** Every node of the cluster, as one master the client is connected to sees it. */
export async function readClusterNodes(cluster: Cluster): Promise<ClusterNode[]> {
  const seed = cluster.nodes('master')[0] ?? cluster.nodes()[0];
  if (!seed) throw new AppError('UNAVAILABLE', 'not connected to any Redis Cluster node');
  const text = String(await seed.call('CLUSTER', 'NODES'));
  return parseClusterNodes(text, seed.options.host ?? '127.0.0.1');
}

/**
 * The master `spec` names: its node id (or an unambiguous prefix of 8 characters or more), its
 * `host:port`, or its announced `hostname:port`. A 400 `BAD_REQUEST` otherwise, naming the
 * masters (`details.reason` SHARD_MOVE_UNKNOWN_NODE, or SHARD_MOVE_NOT_MASTER for a replica).
 */
export function resolveNode(nodes: readonly ClusterNode[], spec: string): ClusterNode {
  const s = spec.trim().toLowerCase();
  const byAddress = nodes.filter(
    (n) =>
      n.id === s ||
      addressOf(n).toLowerCase() === s ||
      (n.hostname !== null && `${n.hostname}:${n.port}`.toLowerCase() === s),
  );
  const matches =
    byAddress.length > 0 || s.length < 8 ? byAddress : nodes.filter((n) => n.id.startsWith(s));
  const masters = nodes.filter((n) => n.master).map((n) => `${addressOf(n)} (${n.id})`);
  const [node] = matches;
  if (matches.length === 1 && node?.master) return node;
  if (matches.length === 1)
    throw new AppError(
      'BAD_REQUEST',
      `${spec} is a replica; move shards to a master: ${masters.join(', ')}`,
      {
        reason: 'SHARD_MOVE_NOT_MASTER',
        masters,
      },
    );
  throw new AppError(
    'BAD_REQUEST',
    matches.length > 1
      ? `${spec} names more than one node; give the whole node id`
      : `no node ${spec} in the cluster; masters: ${masters.join(', ')}`,
    { reason: 'SHARD_MOVE_UNKNOWN_NODE', masters },
  );
}

/** Asks the client to read the slot map again now (it also does every second). */
export async function refreshSlotMap(cluster: Cluster, timeoutMs = 3000): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    cluster.refreshSlotsCache(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Each logical shard's hash slot (its `{shard}` tag's), as the cluster computes it. */
export async function shardSlots(cluster: Cluster, frontier: Frontier): Promise<number[]> {
  return Promise.all(
    Array.from({ length: frontier.shards }, async (_, s) =>
      Number(await cluster.cluster('KEYSLOT', frontier.keys.ready(s))),
    ),
  );
}
