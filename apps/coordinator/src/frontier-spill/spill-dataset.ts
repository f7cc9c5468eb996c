import { randomUUID } from 'node:crypto';
import { SpillStore, type Frontier } from '@crawler/frontier';
import type { RedisClient } from '@crawler/adapters/redis';
import pg from 'pg';

/** Runs `work` with a SpillStore on a pool of its own (one connection), closed after. */
export async function withSpillStore<T>(
  databaseUrl: string,
  frontier: Frontier,
  work: (store: SpillStore) => Promise<T>,
): Promise<T> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    return await work(new SpillStore(pool, frontier.keys.prefix));
  } finally {
    await pool.end();
  }
}

/** What {@link ensureSpillDataset} found or did. */
export interface SpillDataset {
  dataset: string;
  /** A new dataset was named (none was recorded in Redis). */
  named: boolean;
  /** Spilled rows deleted (only a new dataset with `clear`). */
  cleared: number;
}

/**
 * The id of this Redis dataset's spill (FrontierKeys.spillDataset), naming one when Redis has
 * none: Postgres first (a new epoch, so no pump of before writes again; with `clear` the rows of
 * the lost dataset go in the same transaction), then Redis. Call it under the rebuild lock, so
 * two coordinators never name two. A crash in between leaves Redis without an id: the next call
 * names another, and the pump waits meanwhile (it runs only when Redis and Postgres agree).
 */
export async function ensureSpillDataset(
  databaseUrl: string,
  redis: RedisClient,
  frontier: Frontier,
  opts: { clear: boolean },
): Promise<SpillDataset> {
  const key = frontier.keys.spillDataset();
  const have = await redis.get(key);
  if (have) return { dataset: have, named: false, cleared: 0 };
  const dataset = randomUUID();
  const cleared = await withSpillStore(databaseUrl, frontier, (s) => s.resetDataset(dataset, opts));
  await redis.set(key, dataset);
  return { dataset, named: true, cleared };
}
