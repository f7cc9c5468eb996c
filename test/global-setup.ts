import { holdLocalRedisCluster } from '@crawler/testing';

/**
 * Global setup of every vitest run. The local Redis Cluster (ports 7101–7103) is started lazily
 * by the first test file that needs it and shared by all files of the run (and by parallel runs);
 * this teardown stops it once the last run using it ends, so `npm test` leaves nothing running.
 * TEST_REDIS_CLUSTER_KEEP=1 keeps it for the next run (saves ~2 s per run while iterating);
 * TEST_REDIS_CLUSTER=0 skips the cluster tests.
 */
export default function setup(): (() => Promise<void>) | undefined {
  if (process.env.TEST_REDIS_CLUSTER === '0') return undefined;
  return holdLocalRedisCluster();
}
