import { ServerUnavailableError } from '@crawler/domain/errors';
import { redactUrl } from '../log';
import { Cluster, Redis } from 'ioredis';

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
    // Read the URL the way ioredis reads it for a single node: ACL user and password
    // percent-decoded, IPv6 without brackets, TLS for rediss://. Every node gets the same options.
    const u = new URL(url);
    client = new Cluster(
      [{ host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379) }],
      {
        ...common,
        // ioredis follows MOVED/ASK/TRYAGAIN only when every command of an auto-pipeline got the
        // same reply; a MOVED among other results goes to the caller and refreshes nothing, so a
        // client whose calls span nodes (Frontier.stats(), lease waves) kept asking the old
        // owner after a slot moved. A periodic refresh bounds that to about a second.
        slotsRefreshInterval: 1000,
        redisOptions: {
          connectTimeout: 3000,
          username: decodeURIComponent(u.username) || undefined,
          password: decodeURIComponent(u.password) || undefined,
          ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
        },
      },
    );
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
