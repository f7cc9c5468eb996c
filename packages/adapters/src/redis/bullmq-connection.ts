import { Cluster, Redis } from 'ioredis';
import { clusterSeed, type RedisClient } from './connect-redis';

export interface BullmqConnectionOptions {
  /** `REDIS_URL` names a node of a Redis Cluster (`REDIS_CLUSTER`). Default false. */
  cluster?: boolean;
  /** The client name (`CLIENT SETNAME`) each of its connections shows in `CLIENT LIST`. */
  name?: string;
}

/**
 * The connection BullMQ's queues and workers share, for the deployment `url` names:
 * - a Redis Cluster: an ioredis `Cluster` seeded as `connectRedis` seeds one (`clusterSeed`), so
 *   each command goes to the node that owns its slot, whichever node the URL names. A queue's
 *   keys must share one hash tag (a `{…}` prefix): BullMQ's scripts touch several at once;
 * - a single Redis: a plain connection.
 *
 * No auto-pipelining, and no limit on a command's retries (`maxRetriesPerRequest: null`): BullMQ
 * refuses a worker's connection that has one, since a blocking wait for the next job must outlive
 * a Redis restart. The caller owns the client: a `Queue` uses it as is and leaves it open, a
 * `Worker` duplicates it (its own and its blocking connection) and closes its copies. Close it
 * with `closeBullmqConnection` once every queue and worker on it is closed.
 */
export function bullmqConnection(url: string, opts: BullmqConnectionOptions = {}): RedisClient {
  const node = {
    maxRetriesPerRequest: null,
    ...(opts.name ? { connectionName: opts.name } : {}),
  };
  if (!opts.cluster) return new Redis(url, node);
  const seed = clusterSeed(url);
  return new Cluster(seed.nodes, {
    ...seed.options,
    redisOptions: { ...seed.options.redisOptions, ...node },
  });
}

/**
 * Closes a `bullmqConnection` client: QUIT, or a plain disconnect when Redis has not answered
 * within `timeoutMs` (default 2000): with no retry limit, a command queued while Redis is away
 * would otherwise hold the QUIT, and the process, forever.
 */
export async function closeBullmqConnection(client: RedisClient, timeoutMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  try {
    if ((await Promise.race([client.quit(), late])) === 'late') client.disconnect();
  } catch {
    client.disconnect();
  } finally {
    clearTimeout(timer);
  }
}
