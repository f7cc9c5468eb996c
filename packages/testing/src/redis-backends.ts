import { connectRedis, type RedisClient } from '@crawler/adapters/redis';
import { startLocalRedisCluster, type LocalRedisCluster } from './redis-cluster';
import { guardScriptSlots } from './script-slot-guard';

/** A Redis deployment a suite runs against. */
export interface TestRedisBackend {
  name: string;
  cluster: boolean;
  /** True when TEST_REDIS_CLUSTER=0 turned the cluster off. */
  skip: boolean;
  /** A new client; the caller disconnects it. */
  connect: () => Promise<RedisClient>;
}

let cluster: Promise<LocalRedisCluster> | undefined;

/** The local Redis Cluster, started (or joined) once per test process. */
export function sharedLocalRedisCluster(): Promise<LocalRedisCluster> {
  cluster ??= startLocalRedisCluster();
  return cluster;
}

/**
 * The single Redis of the machine (REDIS_URL) and the local 3-master Redis Cluster, whose clients
 * run every Lua script under the slot guard. Run one suite on both:
 *
 *     for (const backend of testRedisBackends())
 *       describe.skipIf(backend.skip)(`… on ${backend.name}`, () => { … backend.connect() … });
 *
 * Calling it starts the cluster in the background (~2 s the first time in a run), so it overlaps
 * the single-Redis half. TEST_REDIS_CLUSTER=0 skips the cluster (no redis-server on the machine).
 */
export function testRedisBackends(): TestRedisBackend[] {
  const withCluster = process.env.TEST_REDIS_CLUSTER !== '0';
  // Failures surface in the cluster half's connect().
  if (withCluster) sharedLocalRedisCluster().catch(() => undefined);
  return [
    {
      name: 'a single Redis',
      cluster: false,
      skip: false,
      connect: () => connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'),
    },
    {
      name: 'a Redis Cluster (3 masters, slot guard)',
      cluster: true,
      skip: !withCluster,
      connect: async () => {
        const { url } = await sharedLocalRedisCluster();
        return guardScriptSlots(await connectRedis(url, { cluster: true }));
      },
    },
  ];
}
