import { randomBytes } from 'node:crypto';

/**
 * The environment of a bench that runs coordinator parts on this machine, for `loadConfig`: a
 * fresh Postgres database (`crawler_bench_<pid>_<random>` on TEST_DATABASE_URL's server; the
 * bench drops it), the machine's Redis (REDIS_URL) under a key prefix of its own
 * (`bench-<name>-<random>`), data under `dataDir`, and a Redis that need not be durable.
 */
export function benchEnv(name: string, dataDir: string): Record<string, string> {
  const db = new URL(
    process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  );
  db.pathname = `/crawler_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  return {
    DATABASE_URL: db.toString(),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `bench-${name}-${randomBytes(4).toString('hex')}`,
    DATA_DIR: dataDir,
    REDIS_VOLATILE_OK: 'true',
  };
}
