import { ServerUnavailableError } from '@crawler/domain/errors';
import { redactUrl } from '../log';
import { Cluster, Redis, type ClusterNode, type ClusterOptions } from 'ioredis';

/** A single Redis or a Redis Cluster: every frontier script touches one slot, so both work. */
export type RedisClient = Redis | Cluster;

const START_REDIS =
  `Start it (e.g. \`redis-server --daemonize yes --port 6379 --appendonly yes --appendfsync everysec\`) or set REDIS_URL. ` +
  `Redis holds the frontier, so it runs with an append-only file (written in the folder it starts in, or --dir).`;

/** Raised at start-up when Redis does not answer; says where and how to start it. */
export class RedisUnavailableError extends ServerUnavailableError {
  readonly code = 'REDIS_UNAVAILABLE';
  constructor(url: string, cause: unknown) {
    super('Redis', redactUrl(url), cause, START_REDIS);
  }
}

/**
 * Connects and pings, failing fast (about 3 s) with a clear error instead of retrying forever.
 * Auto-pipelining batches the many small script calls of the frontier into few round trips.
 */
export async function connectRedis(
  url: string,
  opts: { cluster?: boolean } = {},
): Promise<RedisClient> {
  const common = { enableAutoPipelining: true, lazyConnect: true, connectTimeout: 3000 };
  let client: RedisClient;
  if (opts.cluster) {
    const seed = clusterSeed(url);
    client = new Cluster(seed.nodes, {
      ...common,
      ...seed.options,
      redisOptions: { ...seed.options.redisOptions, connectTimeout: 3000 },
    });
  } else {
    client = new Redis(url, {
      ...common,
      maxRetriesPerRequest: 3,
      // Reconnect for as long as the process lives (a Redis restart can take a while): calls
      // made meanwhile fail after 3 tries, and their callers retry.
      retryStrategy: (n) => Math.min(n * 200, 2000),
    });
  }
  // A server that accepts the connection but never answers (wrong port, hung Redis) must fail too.
  let timer: NodeJS.Timeout | undefined;
  const noAnswer = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer within 3000 ms')), 3000);
  });
  try {
    await Promise.race([client.connect().then(() => client.ping()), noAnswer]);
  } catch (err) {
    client.disconnect();
    throw new RedisUnavailableError(url, err);
  } finally {
    clearTimeout(timer);
  }
  return client;
}

/**
 * How every client of a Redis Cluster reaches it from one node's URL (`connectRedis`, BullMQ's
 * connection): the seed node and the options they share. The URL is read the way ioredis reads
 * it for a single node: ACL user and password percent-decoded, IPv6 without brackets, TLS for
 * rediss://. Every node gets the same options.
 */
export function clusterSeed(url: string): { nodes: ClusterNode[]; options: ClusterOptions } {
  const u = new URL(url);
  return {
    nodes: [{ host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379) }],
    options: {
      // ioredis follows MOVED/ASK/TRYAGAIN only when every command of an auto-pipeline got the
      // same reply; a MOVED among other results goes to the caller and refreshes nothing, so a
      // client whose calls span nodes (Frontier.stats(), lease waves) kept asking the old
      // owner after a slot moved. A periodic refresh bounds that to about a second.
      slotsRefreshInterval: 1000,
      redisOptions: {
        username: decodeURIComponent(u.username) || undefined,
        password: decodeURIComponent(u.password) || undefined,
        ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
      },
    },
  };
}
