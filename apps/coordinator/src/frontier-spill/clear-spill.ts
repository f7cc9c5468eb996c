import { SpillStore, type Frontier } from '@crawler/frontier';
import pg from 'pg';

/**
 * Forgets the installation's spilled URLs in Postgres: a frontier rebuilt after Redis was lost
 * has none of the counters (nor the spill sequence) that account for them, and the rebuild queues
 * the unfetched URLs again from Postgres and ClickHouse. Returns rows deleted.
 */
export async function clearFrontierSpill(databaseUrl: string, frontier: Frontier): Promise<number> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    return await new SpillStore(pool, frontier.keys.prefix).clear();
  } finally {
    await pool.end();
  }
}
